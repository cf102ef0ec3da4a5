// SPDX-License-Identifier: GPL-2.0
/*
 * asuid UID CMD [ARG...]: run CMD as UID (uid, gid and no supplementary
 * groups), for tests/soak.sh: busybox's su wants a passwd entry and its
 * setpriv has no --reuid, and stress-ng does not drop root itself.
 * Exit 111 if the credentials cannot be set, 127 if CMD cannot be run.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long uid;

	if (argc < 3) {
		fprintf(stderr, "usage: asuid UID CMD [ARG...]\n");
		return 2;
	}
	uid = strtol(argv[1], &end, 10);
	if (*end || uid < 0) {
		fprintf(stderr, "asuid: bad uid '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		perror("asuid: setresuid");
		return 111;
	}
	execvp(argv[2], argv + 2);
	perror("asuid: exec");
	return 127;
}
