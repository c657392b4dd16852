// SPDX-License-Identifier: GPL-2.0
/*
 * parload: the engine's programs verified on two CPUs (include/scry/
 * parload.h).
 *
 * The thread owns the copy: it opens it, waits, points its maps at the
 * main object's, and loads it. The main thread touches the copy only
 * after the join, and the copy's open is waited for before the split, so
 * a program is never moved to a copy that cannot load it. Between the
 * two, `state` under `lock` is all they share, with the names the split
 * moved and the main object, written before the thread may read them.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <scry/log.h>
#include <scry/parload.h>

/* The marker's section (bpf/scry.bpf.c maps_ready). */
#define MARKER_SEC	"scry.maps_ready"

enum parload_state {
	PL_OPENING,	/* the thread opens the copy */
	PL_OPENED,	/* ... done (side NULL if it failed) */
	PL_SPLIT,	/* programs moved to the copy: wait for the maps */
	PL_GO,		/* the main object's maps exist: load the copy */
	PL_ABORT,	/* no split, or the main load failed before its maps */
	PL_DONE,	/* the thread is finished */
};

struct parload {
	pthread_t thread;
	bool running;			/* thread not joined yet */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum parload_state state;
	const void *bytes;
	size_t size;
	struct bpf_object_open_opts oo;
	char *btf_path;			/* oo's, owned */
	char *object_name;		/* oo's, owned */
	struct bpf_object *side;	/* the copy */
	struct bpf_object *main;	/* the object whose maps it uses */
	struct bpf_program *marker;	/* main's marker */
	char **moved;			/* the copy's programs, by name */
	size_t nmoved;
	int err;			/* the copy's load */
	bool loaded;			/* ... and it loaded */
	int main_cpu;			/* where the main thread split */
	cpu_set_t cpus;			/* scry's, for the thread */
};

/*
 * The parload whose main object is loading: the hook has no other way to
 * it (libbpf calls it with the program only). One engine loads at a time.
 */
static pthread_mutex_t armed_lock = PTHREAD_MUTEX_INITIALIZER;
static struct parload *armed;

/* States only advance: a late "opened" never undoes an abort. */
static void set_state(struct parload *pl, enum parload_state s)
{
	pthread_mutex_lock(&pl->lock);
	if (s > pl->state)
		pl->state = s;
	pthread_cond_broadcast(&pl->cond);
	pthread_mutex_unlock(&pl->lock);
}

static enum parload_state wait_past(struct parload *pl, enum parload_state s)
{
	enum parload_state now;

	pthread_mutex_lock(&pl->lock);
	while (pl->state <= s)
		pthread_cond_wait(&pl->cond, &pl->lock);
	now = pl->state;
	pthread_mutex_unlock(&pl->lock);
	return now;
}

/*
 * libbpf's load hook of the marker's section: called on the main thread,
 * inside the main object's load, after every map was created and every
 * program relocated, right before the marker itself loads.
 */
static int maps_ready(struct bpf_program *prog,
		      struct bpf_prog_load_opts *opts, long cookie)
{
	(void)opts;
	(void)cookie;
	pthread_mutex_lock(&armed_lock);
	if (armed && armed->marker == prog)
		set_state(armed, PL_GO);
	pthread_mutex_unlock(&armed_lock);
	return 0;
}

static pthread_once_t registered = PTHREAD_ONCE_INIT;
static bool marker_known;	/* libbpf knows the marker's section */

static void register_marker(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, ho,
		    .prog_prepare_load_fn = maps_ready);

	/* the marker is never attached: no attach callback */
	marker_known = libbpf_register_prog_handler(MARKER_SEC,
					BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
					&ho) >= 0;
	if (!marker_known)
		log_debug("libbpf: cannot register section %s: one CPU loads",
			  MARKER_SEC);
}

void parload_register(void)
{
	pthread_once(&registered, register_marker);
}

static bool is_moved(const struct parload *pl, const char *name)
{
	size_t i;

	for (i = 0; i < pl->nmoved; i++)
		if (!strcmp(pl->moved[i], name))
			return true;
	return false;
}

/*
 * The copy's maps are the main object's: the same ELF, so the same maps
 * in the same order. A map the main object did not create is not
 * created here either.
 */
static int share_maps(struct parload *pl)
{
	struct bpf_map *m = NULL, *c = NULL;
	int err;

	for (;;) {
		m = bpf_object__next_map(pl->main, m);
		c = bpf_object__next_map(pl->side, c);
		if (!m || !c)
			return m || c ? -EINVAL : 0;
		if (strcmp(bpf_map__name(m), bpf_map__name(c)))
			return -EINVAL;
		if (bpf_map__fd(m) < 0) {
			bpf_map__set_autocreate(c, false);
			continue;
		}
		err = bpf_map__reuse_fd(c, bpf_map__fd(m));
		if (err)
			return err;
	}
}

/*
 * Wait for the maps on a CPU other than the main thread's. Woken there,
 * the thread would be placed on the waker's CPU (wake-affine: seen here,
 * both verifiers sharing CPU 0 for 13 ms while CPU 1 stayed idle), and
 * the load balancer does not move a task that just ran. The whole set
 * again once it runs.
 */
static void away_from_main(struct parload *pl)
{
	cpu_set_t set = pl->cpus;

	if (pl->main_cpu < 0 || pl->main_cpu >= CPU_SETSIZE)
		return;
	CPU_CLR(pl->main_cpu, &set);
	if (CPU_COUNT(&set))
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *side_load(void *arg)
{
	struct parload *pl = arg;
	struct bpf_program *p;
	int err;

	pl->side = bpf_object__open_mem(pl->bytes, pl->size, &pl->oo);
	if (!pl->side)
		log_debug("second engine copy: open: %s", strerror(errno));
	set_state(pl, PL_OPENED);
	/* SPLIT, or GO already: the maps may come before this thread runs */
	if (!pl->side || wait_past(pl, PL_OPENED) == PL_ABORT)
		goto out;
	away_from_main(pl);
	if (wait_past(pl, PL_SPLIT) != PL_GO)
		goto out;
	pthread_setaffinity_np(pthread_self(), sizeof(pl->cpus), &pl->cpus);
	err = share_maps(pl);
	if (err) {
		log_err("loading BPF programs: the engine's maps in its "
			"second copy: %s (a scry bug)", strerror(-err));
		goto fail;
	}
	bpf_object__for_each_program(p, pl->side)
		bpf_program__set_autoload(p,
					  is_moved(pl, bpf_program__name(p)));
	err = bpf_object__load(pl->side);
	pl->loaded = !err;
fail:
	pl->err = err;
out:
	set_state(pl, PL_DONE);
	return NULL;
}

struct parload *parload_open(const void *bytes, size_t size,
			     const struct bpf_object_open_opts *oo)
{
	struct parload *pl;

	parload_register();
	if (!marker_known)
		return NULL;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	/* a second CPU scry may run on */
	if (sched_getaffinity(0, sizeof(pl->cpus), &pl->cpus) ||
	    CPU_COUNT(&pl->cpus) < 2) {
		free(pl);
		return NULL;
	}
	pl->bytes = bytes;
	pl->size = size;
	pl->oo = *oo;
	pl->btf_path = oo->btf_custom_path ? strdup(oo->btf_custom_path) : NULL;
	pl->object_name = oo->object_name ? strdup(oo->object_name) : NULL;
	pl->oo.btf_custom_path = pl->btf_path;
	pl->oo.object_name = pl->object_name;
	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->cond, NULL);
	if ((oo->btf_custom_path && !pl->btf_path) ||
	    (oo->object_name && !pl->object_name) ||
	    pthread_create(&pl->thread, NULL, side_load, pl)) {
		parload_free(pl);
		return NULL;
	}
	pl->running = true;
	return pl;
}

/*
 * May @p load from the copy? Not when the main object holds state of its
 * own for it that the copy would not have: an fentry/fexit program's
 * attach target (bpf_program__set_attach_target, which libbpf keeps with
 * no getter), and a USDT program's spec ids, which libbpf's USDT manager
 * numbers per object (two managers would write the same maps' ids).
 */
static bool movable(const struct bpf_program *p)
{
	switch (bpf_program__type(p)) {
	case BPF_PROG_TYPE_TRACING:
	case BPF_PROG_TYPE_EXT:
	case BPF_PROG_TYPE_LSM:
		return false;
	default:
		return strcmp(bpf_program__section_name(p), "usdt") != 0;
	}
}

/*
 * A program's own instructions: what its verification costs, roughly
 * (the subprograms it calls come on top, the same for most).
 */
static size_t cost(const struct bpf_program *p)
{
	return bpf_program__insn_cnt(p);
}

static int by_cost(const void *a, const void *b)
{
	size_t x = cost(*(struct bpf_program *const *)a);
	size_t y = cost(*(struct bpf_program *const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

bool parload_split(struct parload *pl, struct bpf_object *main,
		   struct bpf_program *marker)
{
	struct bpf_program *p, **progs = NULL;
	size_t n = 0, i, load[2] = { 0, 0 };
	bool side_of[64] = { false };
	char **moved;

	if (!pl)
		return false;
	/* the copy must be open before anything is moved to it */
	if (wait_past(pl, PL_OPENING) != PL_OPENED || !pl->side ||
	    bpf_object__next_program(main, NULL) != marker)
		goto none;
	bpf_object__for_each_program(p, main)
		if (p != marker && bpf_program__autoload(p))
			n++;
	if (n < 2 || n > 64 || !(progs = calloc(n, sizeof(*progs))))
		goto none;
	n = 0;
	bpf_object__for_each_program(p, main) {
		if (p == marker || !bpf_program__autoload(p))
			continue;
		if (movable(p))
			progs[n++] = p;
		else
			load[0] += cost(p);
	}
	if (!n)
		goto none;
	/*
	 * Longest first, each to the lighter share, the copy's on a tie: it
	 * takes the largest, the main object (which made the maps before)
	 * the next.
	 */
	qsort(progs, n, sizeof(*progs), by_cost);
	for (i = 0; i < n; i++) {
		side_of[i] = load[1] <= load[0];
		load[side_of[i]] += cost(progs[i]);
	}
	moved = calloc(n, sizeof(*moved));
	if (!moved)
		goto none;
	for (i = 0; i < n; i++) {
		if (!side_of[i])
			continue;
		moved[pl->nmoved] = strdup(bpf_program__name(progs[i]));
		if (!moved[pl->nmoved++]) {
			pl->moved = moved;
			goto none;
		}
	}
	pl->moved = moved;
	for (i = 0; i < n; i++) {
		if (!side_of[i])
			continue;
		bpf_program__set_autoload(progs[i], false);
		log_debug("engine: %s loads on a second CPU",
			  bpf_program__name(progs[i]));
	}
	bpf_program__set_autoload(marker, true);
	pl->main = main;
	pl->marker = marker;
	pl->main_cpu = sched_getcpu();
	free(progs);
	pthread_mutex_lock(&armed_lock);
	armed = pl;
	pthread_mutex_unlock(&armed_lock);
	set_state(pl, PL_SPLIT);
	return true;
none:
	free(progs);
	if (pl->moved) {
		for (i = 0; i < pl->nmoved; i++)
			free(pl->moved[i]);
		free(pl->moved);
		pl->moved = NULL;
		pl->nmoved = 0;
	}
	set_state(pl, PL_ABORT);
	return false;
}

int parload_finish(struct parload *pl, int err)
{
	if (!pl)
		return err;
	pthread_mutex_lock(&armed_lock);
	if (armed == pl)
		armed = NULL;
	pthread_mutex_unlock(&armed_lock);
	/* the main load failed before its maps: the copy has none to use */
	pthread_mutex_lock(&pl->lock);
	if (pl->state < PL_GO) {	/* OPENED, SPLIT */
		pl->state = PL_ABORT;
		pthread_cond_broadcast(&pl->cond);
	}
	pthread_mutex_unlock(&pl->lock);
	if (pl->running)
		pthread_join(pl->thread, NULL);
	pl->running = false;
	/* moved programs are loaded by the copy or by nobody */
	if (!err && pl->nmoved && !pl->loaded)
		err = pl->err ? pl->err : -ECANCELED;
	return err;
}

struct bpf_program *parload_prog(const struct parload *pl,
				 struct bpf_program *prog)
{
	struct bpf_program *c;

	if (!pl || !pl->side || !prog || !pl->nmoved ||
	    !is_moved(pl, bpf_program__name(prog)))
		return prog;
	c = bpf_object__find_program_by_name(pl->side,
					     bpf_program__name(prog));
	return c ? c : prog;
}

struct bpf_object *parload_object(const struct parload *pl)
{
	return pl && pl->nmoved ? pl->side : NULL;
}

void parload_free(struct parload *pl)
{
	size_t i;

	if (!pl)
		return;
	if (pl->running)
		parload_finish(pl, 0);
	bpf_object__close(pl->side);
	for (i = 0; i < pl->nmoved; i++)
		free(pl->moved[i]);
	free(pl->moved);
	free(pl->btf_path);
	free(pl->object_name);
	pthread_mutex_destroy(&pl->lock);
	pthread_cond_destroy(&pl->cond);
	free(pl);
}
