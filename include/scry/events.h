/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events: the records clauses write while tracing (ring buffer `events`):
 * printf(), print(), clear(), zero(), time(), exit(), handled in order.
 */
#ifndef SCRY_EVENTS_H
#define SCRY_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct attach;
struct syms;
struct events;

/* A handler for @a's plan, printing to @out. NULL on no memory. */
struct events *events_new(struct attach *a, struct syms *syms, FILE *out);
void events_free(struct events *e);

/* The ring buffer callback (ring_buffer__add's), @ctx the handler. */
int events_consume(void *ctx, void *data, size_t len);

/*
 * Print the records held while scry was asked to stop, in order: call
 * once the stop is served (stop_reset), and before the last answer.
 */
void events_release(struct events *e);

/* Has a clause called exit()? */
bool events_exit(const struct events *e);

/* The first error writing the stream (-EPIPE: its reader is gone), or 0. */
int events_error(const struct events *e);

#endif /* SCRY_EVENTS_H */
