// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A process with named threads, for the context tests: it names itself
 * tr-main, starts N threads that name themselves tr-worker-I and call
 * getppid() 10 * (I + 1) times, joins them, then calls getppid() 5 times.
 * Prints "PID TID NAME COUNT" for each thread, the main thread first.
 *	threads N
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define MAX_THREADS	16

struct worker {
	pthread_t thread;
	int index;
	pid_t tid;
	char name[16];
};

static void call_getppid(int n)
{
	while (n--)
		syscall(SYS_getppid);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	snprintf(w->name, sizeof(w->name), "tr-worker-%d", w->index);
	pthread_setname_np(pthread_self(), w->name);
	call_getppid(10 * (w->index + 1));
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, i;
	struct worker w[MAX_THREADS];

	if (n < 0 || n > MAX_THREADS)
		return 2;
	prctl(PR_SET_NAME, "tr-main");
	for (i = 0; i < n; i++) {
		w[i].index = i;
		if (pthread_create(&w[i].thread, NULL, work, &w[i]))
			return 1;
	}
	for (i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	call_getppid(5);
	printf("%d %d tr-main 5\n", getpid(), gettid());
	for (i = 0; i < n; i++)
		printf("%d %d %s %d\n", getpid(), w[i].tid, w[i].name, 10 * (i + 1));
	return 0;
}
