/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stop: "the user asked scry to stop" (Ctrl-C, SIGTERM, SIGHUP, -d), as
 * one flag every long-running loop can test. The session's signal
 * watcher sets it the moment a signal arrives, whatever the main thread
 * is doing (verifying programs, building unwind tables, symbolizing), so
 * work that takes long checks stop_requested() now and then and gives up
 * early instead of making the user wait.
 */
#ifndef SCRY_STOP_H
#define SCRY_STOP_H

#include <stdbool.h>

/* True once stop_request() was called. Cheap: an atomic load. */
bool stop_requested(void);

/* Ask every long loop to end early (async-signal-safe). */
void stop_request(void);

/* Clear the flag (tests). */
void stop_reset(void);

#endif /* SCRY_STOP_H */
