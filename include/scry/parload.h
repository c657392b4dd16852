/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parload: the engine's programs verified on two CPUs at once.
 *
 * The kernel verifies a program in the bpf() call that loads it, on the
 * caller's CPU, and libbpf loads an object's programs one after another:
 * offcpu's start spent ~12 of its ~21 ms in the verifier, one CPU busy
 * and the other idle. parload opens the engine's bytes a second time, on
 * a thread, and loads a share of the plan's programs from that copy while
 * the skeleton's object loads the rest; the copy uses the skeleton's
 * maps (their fds), so both shares are one engine.
 *
 * The copy can start only once the maps exist, which is inside the
 * skeleton's load: the engine's first program is a marker (bpf/scry.bpf.c
 * maps_ready) whose section has a load hook here, which libbpf calls
 * after it has created every map.
 */
#ifndef SCRY_PARLOAD_H
#define SCRY_PARLOAD_H

#include <stdbool.h>

struct bpf_object;
struct bpf_object_open_opts;
struct bpf_program;
struct parload;

/*
 * Registers the marker's section with libbpf: before any open of the
 * engine (attach_engine_open calls it).
 */
void parload_register(void);

/*
 * Start opening @size bytes at @bytes (the engine @main was opened from,
 * with the same @oo, which parload copies) on a thread. NULL when there
 * is no second CPU to load on, or on failure: a plain load then.
 */
struct parload *parload_open(const void *bytes, size_t size,
			     const struct bpf_object_open_opts *oo);

/*
 * Before @main's load (its programs' autoload set as the plan wants):
 * moves a share of those programs to the copy, and has @main load its
 * @marker first. False, with nothing moved, when a split would not pay
 * (one program does nearly all the work alone) or the copy did not open.
 */
bool parload_split(struct parload *pl, struct bpf_object *main,
		   struct bpf_program *marker);

/*
 * After @main's load, which returned @err: waits for the copy's load.
 * Returns @err, or the copy's error.
 */
int parload_finish(struct parload *pl, int err);

/*
 * The program loaded for @prog of the main object: itself, or the copy's
 * of the same name when the copy loaded it. NULL-safe in @pl.
 */
struct bpf_program *parload_prog(const struct parload *pl,
				 struct bpf_program *prog);

/* The copy's object (for selfprog), NULL when it loaded nothing. */
struct bpf_object *parload_object(const struct parload *pl);

/* Joins the thread if it still runs, closes the copy. NULL-safe. */
void parload_free(struct parload *pl);

#endif /* SCRY_PARLOAD_H */
