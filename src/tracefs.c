// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs: event formats for tracepoint:CAT:NAME. A format file lists
 * each field as "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/tracefs.h>

#define TRACEFS_MAGIC	0x74726163

static bool is_tracefs(const char *dir)
{
	struct statfs st;

	return !statfs(dir, &st) && st.f_type == TRACEFS_MAGIC;
}

int tracefs_ensure(void)
{
	if (is_tracefs(TRACEFS))
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		int err = -errno;

		log_err("tracefs is not mounted and mounting it at %s failed: "
			"%s", TRACEFS, strerror(-err));
		return err;
	}
	log_info("mounted tracefs at %s (tracepoints need it)", TRACEFS);
	return 0;
}

/*
 * "unsigned int prev_state", "char prev_comm[16]", "__data_loc char[]
 * filename": the NAME is the last word, without its array suffix; the
 * words before it, and the suffix, are the C type ("char[16]").
 */
static void parse_decl(char *decl, struct plan_tp_field *f, char **name)
{
	char *sp = strrchr(decl, ' '), *br;

	*name = sp ? sp + 1 : decl;
	br = strchr(*name, '[');
	/* the type keeps the array's brackets: "u8[4]" is no u8 */
	snprintf(f->ctype, sizeof(f->ctype), "%.*s%s",
		 sp ? (int)(sp - decl) : 0, decl, br ? br : "");
	if (br)
		*br = '\0';
	f->data_loc = !strncmp(decl, "__data_loc", 10);
	f->is_string = (f->data_loc || br) && strstr(decl, "char");
	/*
	 * "const char * filename": an address, the string is elsewhere
	 * (not "const char *const * argv", an array of them)
	 */
	f->is_charptr = !f->is_string && strstr(decl, "char") &&
			strchr(decl, '*') &&
			strchr(decl, '*') == strrchr(decl, '*');
}

int tracefs_field(const char *cat, const char *name, const char *field,
		  struct plan_tp_field *out, char *err, size_t errlen)
{
	char path[512], line[512], have[256] = "";
	int ret = -ENOENT;
	FILE *f;

	if (tracefs_ensure())
		return -ENOENT;
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/format", cat, name);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "no tracepoint %s:%s (see %s/events)",
			 cat, name, TRACEFS);
		return -ENOENT;
	}
	while (fgets(line, sizeof(line), f)) {
		struct plan_tp_field tf = {};
		char decl[256], *fname;
		unsigned off, size, sign;

		if (sscanf(line, " field:%255[^;]; offset:%u; size:%u; signed:%u;",
			   decl, &off, &size, &sign) != 4)
			continue;
		parse_decl(decl, &tf, &fname);
		if (!strncmp(fname, "common_", 7))
			continue;
		if (strlen(have) + strlen(fname) + 2 < sizeof(have))
			strcat(strcat(have, " "), fname);
		if (strcmp(fname, field))
			continue;
		tf.offset = off;
		tf.size = size;
		tf.is_signed = sign;
		*out = tf;
		ret = 0;
	}
	fclose(f);
	if (ret)
		snprintf(err, errlen, "tracepoint %s:%s has no field '%s' "
			 "(fields:%s)", cat, name, field, have);
	return ret;
}
