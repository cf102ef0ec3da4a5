// SPDX-License-Identifier: GPL-2.0
/*
 * end_release_unix: helper of end_release.sh. A child reads one byte from
 * an AF_UNIX stream socket pair (so that the socket names it as its
 * reader) and exits; the parent reaps it, prints its pid and keeps the
 * pair open until it is killed.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int sv[2];
	pid_t pid;
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return perror("socketpair"), 1;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (!pid)
		_exit(read(sv[1], &c, 1) == 1 ? 0 : 1);
	if (write(sv[0], "x", 1) != 1)
		return perror("write"), 1;
	if (waitpid(pid, NULL, 0) != pid)
		return perror("waitpid"), 1;
	printf("%d\n", (int)pid);
	fflush(stdout);
	pause();
	return 0;
}
