/*
 * posix-misc.c - what t_posix checks of <sys/queue.h>, getpid and the
 * owner and mode calls, its output compared with a native glibc build's:
 * each of the six list kinds built, walked both ways where it can be,
 * and taken apart; getpid() the same in two threads; chmod and chown of
 * a file that exists succeed (chown to -1, -1: unchanged, which any
 * user may do natively) and of one that does not fail with ENOENT.
 * Arguments: a file of the caller's that exists, a path that does not.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <unistd.h>

struct node {
	int v;
	SLIST_ENTRY(node) s;
	LIST_ENTRY(node) l;
	STAILQ_ENTRY(node) st;
	SIMPLEQ_ENTRY(node) sq;
	TAILQ_ENTRY(node) t;
	CIRCLEQ_ENTRY(node) c;
};

SLIST_HEAD(shead, node);
LIST_HEAD(lhead, node);
STAILQ_HEAD(sthead, node);
SIMPLEQ_HEAD(sqhead, node);
TAILQ_HEAD(thead, node);
CIRCLEQ_HEAD(chead, node);

static struct node n[6];

static void lists(void)
{
	struct shead sh = SLIST_HEAD_INITIALIZER(sh);
	struct lhead lh = LIST_HEAD_INITIALIZER(lh);
	struct sthead sth = STAILQ_HEAD_INITIALIZER(sth), sth2;
	struct sqhead sqh = SIMPLEQ_HEAD_INITIALIZER(sqh);
	struct thead th = TAILQ_HEAD_INITIALIZER(th), th2;
	struct chead ch;
	struct node *p;

	for (int i = 0; i < 6; i++)
		n[i].v = i;

	for (int i = 0; i < 3; i++)
		SLIST_INSERT_HEAD(&sh, &n[i], s);
	SLIST_INSERT_AFTER(&n[2], &n[3], s);
	SLIST_REMOVE(&sh, &n[1], node, s);
	printf("slist:");
	SLIST_FOREACH(p, &sh, s)
	printf(" %d", p->v);
	SLIST_REMOVE_HEAD(&sh, s);
	printf(" | first %d\n", SLIST_FIRST(&sh)->v);

	LIST_INSERT_HEAD(&lh, &n[0], l);
	LIST_INSERT_AFTER(&n[0], &n[2], l);
	LIST_INSERT_BEFORE(&n[2], &n[1], l);
	LIST_INSERT_HEAD(&lh, &n[5], l);
	LIST_REMOVE(&n[0], l);
	printf("list:");
	LIST_FOREACH(p, &lh, l)
	printf(" %d", p->v);
	printf("\n");

	for (int i = 0; i < 3; i++)
		STAILQ_INSERT_TAIL(&sth, &n[i], st);
	STAILQ_INSERT_HEAD(&sth, &n[3], st);
	STAILQ_INSERT_AFTER(&sth, &n[0], &n[4], st);
	STAILQ_REMOVE(&sth, &n[2], node, st);
	STAILQ_REMOVE_HEAD(&sth, st);
	STAILQ_INIT(&sth2);
	STAILQ_INSERT_TAIL(&sth2, &n[5], st);
	STAILQ_CONCAT(&sth, &sth2);
	printf("stailq:");
	STAILQ_FOREACH(p, &sth, st)
	printf(" %d", p->v);
	printf(" | second empty %d\n", STAILQ_EMPTY(&sth2));

	for (int i = 0; i < 4; i++)
		SIMPLEQ_INSERT_TAIL(&sqh, &n[i], sq);
	SIMPLEQ_REMOVE(&sqh, &n[3], node, sq);
	SIMPLEQ_INSERT_TAIL(&sqh, &n[5], sq);
	printf("simpleq:");
	SIMPLEQ_FOREACH(p, &sqh, sq)
	printf(" %d", p->v);
	printf("\n");

	for (int i = 0; i < 4; i++)
		TAILQ_INSERT_TAIL(&th, &n[i], t);
	TAILQ_INSERT_BEFORE(&n[0], &n[4], t);
	TAILQ_INSERT_AFTER(&th, &n[3], &n[5], t);
	TAILQ_REMOVE(&th, &n[2], t);
	printf("tailq:");
	TAILQ_FOREACH(p, &th, t)
	printf(" %d", p->v);
	printf(" | reverse:");
	TAILQ_FOREACH_REVERSE(p, &th, thead, t)
	printf(" %d", p->v);
	printf(" | last %d prev %d\n", TAILQ_LAST(&th, thead)->v,
	       TAILQ_PREV(&n[3], thead, t)->v);
	TAILQ_INIT(&th2);
	TAILQ_REMOVE(&th, &n[5], t);
	TAILQ_INSERT_HEAD(&th2, &n[5], t);
	TAILQ_CONCAT(&th2, &th, t);
	printf("tailq concat:");
	while ((p = TAILQ_FIRST(&th2))) {
		printf(" %d", p->v);
		TAILQ_REMOVE(&th2, p, t);
	}
	printf(" | empty %d %d\n", TAILQ_EMPTY(&th), TAILQ_EMPTY(&th2));

	CIRCLEQ_INIT(&ch);
	CIRCLEQ_INSERT_HEAD(&ch, &n[1], c);
	CIRCLEQ_INSERT_TAIL(&ch, &n[3], c);
	CIRCLEQ_INSERT_AFTER(&ch, &n[1], &n[2], c);
	CIRCLEQ_INSERT_BEFORE(&ch, &n[1], &n[0], c);
	CIRCLEQ_REMOVE(&ch, &n[2], c);
	printf("circleq:");
	CIRCLEQ_FOREACH(p, &ch, c)
	printf(" %d", p->v);
	printf(" | reverse:");
	CIRCLEQ_FOREACH_REVERSE(p, &ch, c)
	printf(" %d", p->v);
	printf(" | after last %d before first %d\n",
	       CIRCLEQ_LOOP_NEXT(&ch, CIRCLEQ_LAST(&ch), c)->v,
	       CIRCLEQ_LOOP_PREV(&ch, CIRCLEQ_FIRST(&ch), c)->v);
}

static void *other_pid(void *arg)
{
	*(pid_t *)arg = getpid();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *file = argc > 2 ? argv[1] : "posix-misc.c";
	const char *missing = argc > 2 ? argv[2] : "no-such-file";
	pthread_t t;
	pid_t mine = getpid(), theirs = 0;
	int fd, rc;

	lists();
	if (pthread_create(&t, NULL, other_pid, &theirs) ||
	    pthread_join(t, NULL))
		return 1;
	printf("getpid: same in two threads %d, positive %d, parent %d\n",
	       mine == theirs, mine > 0, getppid() > 0);
	fd = open(file, O_RDONLY);
	printf("chmod: %d, fchmod: %d, chown: %d, lchown: %d, fchown: %d\n",
	       chmod(file, 0644), fchmod(fd, 0644), chown(file, -1, -1),
	       lchown(file, -1, -1), fchown(fd, -1, -1));
	close(fd);
	errno = 0;
	rc = chmod(missing, 0600);
	printf("chmod of a missing file: %d, ENOENT %d\n", rc, errno == ENOENT);
	errno = 0;
	rc = chown(missing, -1, -1);
	printf("chown of a missing file: %d, ENOENT %d\n", rc, errno == ENOENT);
	return 0;
}
