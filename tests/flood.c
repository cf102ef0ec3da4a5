// SPDX-License-Identifier: GPL-2.0
/*
 * flood: AF_UNIX traffic until killed, for the load/unload and stress
 * tests. Each instance runs a writer and a reader over one socket of the
 * given type, a socketpair or a bound and connected pair.
 *
 *	flood stream|seqpacket|dgram [pair|bound] [block|nonblock]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int socket_type(const char *s)
{
	if (!strcmp(s, "stream"))
		return SOCK_STREAM;
	if (!strcmp(s, "seqpacket"))
		return SOCK_SEQPACKET;
	if (!strcmp(s, "dgram"))
		return SOCK_DGRAM;
	return -1;
}

static void connect_bound(int type, int sv[2])
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l;

	/* Abstract names: nothing to clean up. */
	snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "flood-%d", getpid());
	sv[1] = socket(AF_UNIX, type, 0);
	if (bind(sv[1], (struct sockaddr *)&a, sizeof(a)) < 0)
		exit(1);
	if (type == SOCK_DGRAM) {
		sv[0] = socket(AF_UNIX, type, 0);
		if (connect(sv[0], (struct sockaddr *)&a, sizeof(a)) < 0)
			exit(1);
		return;
	}
	listen(sv[1], 1);
	sv[0] = socket(AF_UNIX, type, 0);
	if (connect(sv[0], (struct sockaddr *)&a, sizeof(a)) < 0)
		exit(1);
	l = accept(sv[1], NULL, NULL);
	close(sv[1]);
	sv[1] = l;
}

int main(int argc, char **argv)
{
	int type = argc > 1 ? socket_type(argv[1]) : SOCK_STREAM;
	int bound = argc > 2 && !strcmp(argv[2], "bound");
	int nonblock = argc > 3 && !strcmp(argv[3], "nonblock");
	char buf[256];
	int sv[2];
	pid_t pid;

	if (type < 0) {
		fprintf(stderr, "usage: flood stream|seqpacket|dgram [pair|bound] [block|nonblock]\n");
		return 2;
	}
	if (bound)
		connect_bound(type, sv);
	else if (socketpair(AF_UNIX, type, 0, sv) < 0)
		return 1;
	if (nonblock) {
		fcntl(sv[0], F_SETFL, O_NONBLOCK);
		fcntl(sv[1], F_SETFL, O_NONBLOCK);
	}
	memset(buf, 'f', sizeof(buf));
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			if (recv(sv[1], buf, sizeof(buf), 0) == 0)
				return 0;
	}
	signal(SIGTERM, SIG_DFL);
	for (;;)
		send(sv[0], buf, 1 + rand() % sizeof(buf), MSG_NOSIGNAL);
}
