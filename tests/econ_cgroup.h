/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placing tasks as systemd would, for the tests: cgroup v2 (mounted by
 * the guest's /init on /sys/fs/cgroup) with the cpu controller on along
 * the path, cpu.weight and cpu.max; and the group entities' weights as
 * the scheduler keeps them (se->load.weight of each group's cfs_rq in
 * /sys/kernel/debug/sched/debug).
 */
#ifndef _ECON_CGROUP_H
#define _ECON_CGROUP_H

#include "econ_test.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define ECON_CGROOT	"/sys/fs/cgroup"

static inline int econ_cg_write(const char *group, const char *file,
				const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), ECON_CGROOT "/%s/%s", group, file);
	return econ_write_file(path, val);
}

/*
 * Make @group (a path below the root, "a/b/c") with the cpu controller
 * enabled for it and every ancestor. 0 or -1.
 */
static inline int econ_cg_make(const char *group)
{
	char path[256], parent[256] = "";
	const char *p = group;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - group) : strlen(group);

		if (econ_cg_write(parent[0] ? parent : ".",
				  "cgroup.subtree_control", "+cpu"))
			return -1;
		snprintf(parent, sizeof(parent), "%.*s", (int)len, group);
		snprintf(path, sizeof(path), ECON_CGROOT "/%s", parent);
		if (mkdir(path, 0755) && access(path, F_OK))
			return -1;
		if (!slash)
			return 0;
		p = slash + 1;
	}
}

static inline int econ_cg_move(const char *group, pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	return econ_cg_write(group, "cgroup.procs", buf);
}

/* Remove @group and its ancestors below the root, deepest first. */
static inline void econ_cg_remove(const char *group)
{
	char path[256];
	char *slash;

	snprintf(path, sizeof(path), ECON_CGROOT "/%s", group);
	for (;;) {
		rmdir(path);
		slash = strrchr(path, '/');
		if (!slash || slash - path <= (int)strlen(ECON_CGROOT))
			return;
		*slash = 0;
	}
}

/*
 * The load weight (nice 0 = 1024) of @group's entity on @cpu, as the
 * scheduler's debug file prints it, or -1.
 */
static inline long long econ_cg_entity_weight(const char *group, int cpu)
{
	char want[300], line[300], key[64];
	long long v, w = -1;
	int in = 0;
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "cfs_rq[%d]:/%s\n", cpu, group);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cfs_rq[", 7)) {
			in = !strcmp(line, want);
			continue;
		}
		if (!in || sscanf(line, " .%63s : %lld", key, &v) != 2)
			continue;
		if (!strcmp(key, "se->load.weight")) {
			w = v / 1024;
			break;
		}
	}
	fclose(f);
	return w;
}

#endif /* _ECON_CGROUP_H */
