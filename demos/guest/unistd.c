/*
 * unistd.c - process identity, owners and modes for heisen's guests (the
 * contract is include/unistd.h's and include/sys/stat.h's). WASI has no
 * process ids, owners or permission bits; a program that asks for them
 * gets fixed ids, and changing them is accepted, but only on a file that
 * exists, so that a wrong path still fails as it would natively.
 */
#include <sys/stat.h>
#include <unistd.h>

pid_t getpid(void) { return 42; }

pid_t getppid(void) { return 1; }

int chmod(const char *path, mode_t mode)
{
	struct stat st;
	return stat(path, &st);
}

int fchmod(int fd, mode_t mode)
{
	struct stat st;
	return fstat(fd, &st);
}

int chown(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;
	return stat(path, &st);
}

int fchown(int fd, uid_t uid, gid_t gid)
{
	struct stat st;
	return fstat(fd, &st);
}

int lchown(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;
	return lstat(path, &st);
}
