// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/trace_dir.h"

/* Everything a trace directory holds, named once. */
#define METADATA	"metadata"
#define META_DIR	".tracer"

/*
 * Traces from before mappings became tracer:vm_map records held them in
 * .tracer/maps: a new recording still clears such a trace.
 */
#define OLD_MAPS	"maps"

/* Whether name is one this file writes (or wrote): at the top, or inside META_DIR. */
static int written_here(const char *name, int inside_meta)
{
	const char *cpu = strrchr(name, '_');

	if (inside_meta)
		return !strcmp(name, TR_TRACE_FORMATS) || !strcmp(name, TR_TRACE_STACKS) ||
		       !strcmp(name, TR_TRACE_KALLSYMS) || !strcmp(name, OLD_MAPS) ||
		       !strcmp(name, TR_TRACE_CHANNELS) || !strcmp(name, TR_TRACE_CONTEXT) ||
		       !strcmp(name, TR_TRACE_PRINTK);
	if (!strcmp(name, METADATA) || !strcmp(name, META_DIR))
		return 1;
	/* A stream file: CHANNEL_CPU. */
	return cpu && cpu > name && tr_trace_dir_channel_name_ok(name, cpu - name) &&
	       cpu[1] && strspn(cpu + 1, "0123456789") == strlen(cpu + 1);
}


static int is_a(int at, const char *name, mode_t type)
{
	struct stat st;

	return !fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) && (st.st_mode & S_IFMT) == type;
}

/* A trace as this file writes it: metadata and the formats report needs. */
static int is_trace(int fd)
{
	return is_a(fd, METADATA, S_IFREG) && is_a(fd, META_DIR, S_IFDIR) &&
	       is_a(fd, META_DIR "/" TR_TRACE_FORMATS, S_IFREG);
}

static int open_dir_at(int at, const char *name)
{
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* An id from SUDO_UID or SUDO_GID: decimal digits only. */
static int parse_id(const char *text, unsigned int *id)
{
	unsigned long long n = 0;

	if (!text || !*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 10)
		return -EINVAL;
	n = strtoull(text, NULL, 10);
	if (n >= (uid_t)-1)
		return -ERANGE;
	*id = n;
	return 0;
}

int tr_sudo_owner(uid_t *uid, gid_t *gid)
{
	unsigned int sudo_uid, sudo_gid;

	*uid = geteuid();
	*gid = getegid();
	if (*uid || parse_id(getenv("SUDO_UID"), &sudo_uid) || parse_id(getenv("SUDO_GID"), &sudo_gid))
		return 0;
	if (sudo_uid == *uid && sudo_gid == *gid)
		return 0;
	*uid = sudo_uid;
	*gid = sudo_gid;
	return 1;
}

static void choose_owner(struct tr_trace_dir *d)
{
	d->give_away = tr_sudo_owner(&d->uid, &d->gid);
}

static int give_away(const struct tr_trace_dir *d, int fd)
{
	return d->give_away && fchown(fd, d->uid, d->gid) ? -errno : 0;
}

/* The lock that stays held while a recorder writes the directory. */
static int lock(int fd, const char *path, char *why, size_t whylen)
{
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno == EWOULDBLOCK) {
		snprintf(why, whylen, "%s is being written by another recorder", path);
		return -EBUSY;
	}
	snprintf(why, whylen, "cannot lock %s: %s", path, strerror(errno));
	return -errno;
}

/* An existing directory, locked, never through a symbolic link.  fd or -errno. */
static int open_existing(const char *path, char *why, size_t whylen)
{
	struct stat st;
	int fd, err;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		snprintf(why, whylen, "%s is a symbolic link; --force replaces only a trace directory", path);
		return -EEXIST;
	}
	fd = open_dir_at(AT_FDCWD, path);
	if (fd < 0) {
		err = -errno;
		snprintf(why, whylen, err == -ENOTDIR ?
			 "%s is not a directory; --force replaces only a trace directory" :
			 "cannot open %s: %s", path, strerror(-err));
		return err == -ENOTDIR ? -EEXIST : err;
	}
	err = lock(fd, path, why, whylen);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Remove the entries of directory fd, .tracer/ and its entries included,
 * if every one has a name written here: -ENOTEMPTY at the first that has
 * not.  check_only removes nothing.  unlinkat() removes a symbolic link,
 * never what it points to.
 */
static int clear_trace(int fd, int inside_meta, int check_only)
{
	DIR *dir = fdopendir(dup(fd));
	struct dirent *de;
	int err = dir ? 0 : -errno;

	if (dir)
		rewinddir(dir);	/* the duplicate shares fd's offset: read it all again */
	while (!err && (de = readdir(dir))) {
		int meta;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!written_here(de->d_name, inside_meta)) {
			err = -ENOTEMPTY;
			break;
		}
		if (!inside_meta && !strcmp(de->d_name, META_DIR)) {
			meta = open_dir_at(fd, META_DIR);
			err = meta < 0 ? -errno : clear_trace(meta, 1, check_only);
			if (meta >= 0)
				close(meta);
			if (!err && !check_only && unlinkat(fd, META_DIR, AT_REMOVEDIR))
				err = -errno;
		} else if (!check_only && unlinkat(fd, de->d_name, 0)) {
			err = -errno;
		}
	}
	if (dir)
		closedir(dir);
	return err;
}

/* path.old goes, if it is a trace and nothing but a trace. */
static int remove_old_trace(const char *old, const char *path, char *why, size_t whylen)
{
	struct stat st;
	int fd, err;

	if (lstat(old, &st) && errno == ENOENT)
		return 0;
	fd = open_existing(old, why, whylen);
	if (fd < 0)
		return fd;
	err = is_trace(fd) ? clear_trace(fd, 0, 1) : -ENOTEMPTY;
	if (err) {
		snprintf(why, whylen, "%s holds more than a previous trace: move it away to replace %s",
			 old, path);
		close(fd);
		return -EEXIST;
	}
	err = clear_trace(fd, 0, 0);
	if (!err && unlinkat(AT_FDCWD, old, AT_REMOVEDIR))
		err = -errno;
	if (err)
		snprintf(why, whylen, "cannot remove the previous trace %s: %s", old, strerror(-err));
	close(fd);
	return err;
}

/* --force: an existing trace becomes path.old, as perf keeps perf.data.old. */
static int move_aside(const char *path, char *why, size_t whylen)
{
	size_t len = strlen(path);
	char old[PATH_MAX];
	int fd, err;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (snprintf(old, sizeof(old), "%.*s.old", (int)len, path) >= (int)sizeof(old)) {
		snprintf(why, whylen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = open_existing(path, why, whylen);
	if (fd < 0)
		return fd;
	err = is_trace(fd) ? 0 : -EEXIST;
	if (err)
		snprintf(why, whylen, "%s is not a trace (no " METADATA " and " META_DIR "/" TR_TRACE_FORMATS
			 "); --force replaces only a trace directory", path);
	if (!err)
		err = remove_old_trace(old, path, why, whylen);
	if (!err && renameat2(AT_FDCWD, path, AT_FDCWD, old, RENAME_NOREPLACE)) {
		err = -errno;
		snprintf(why, whylen, "cannot move %s to %s: %s", path, old, strerror(-err));
	}
	close(fd);
	return err;
}

static int make_dir(const char *path, int replace, char *why, size_t whylen)
{
	int err;

	if (!mkdir(path, 0700))
		return 0;
	err = -errno;
	if (err != -EEXIST || !replace) {
		snprintf(why, whylen, err == -EEXIST ?
			 "%s already exists; choose another -o or add --force to replace it" :
			 "cannot create %s: %s", path, strerror(-err));
		return err;
	}
	err = move_aside(path, why, whylen);
	if (err)
		return err;
	if (!mkdir(path, 0700))
		return 0;
	err = -errno;
	snprintf(why, whylen, err == -EEXIST ? "%s was created again while being replaced" :
		 "cannot create %s: %s", path, strerror(-err));
	return err == -EEXIST ? -EBUSY : err;
}

/*
 * Open what make_dir() created, and check it is still that: anyone who
 * can write the parent may have put their own directory in its place.
 */
static int open_created(struct tr_trace_dir *d, const char *path, char *why, size_t whylen)
{
	struct stat st;
	int err;

	d->fd = open_dir_at(AT_FDCWD, path);
	if (d->fd < 0 || fstat(d->fd, &st)) {
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, whylen, "%s was replaced by another user's directory while being created",
			 path);
		return -EEXIST;
	}
	err = lock(d->fd, path, why, whylen);
	if (err)
		return err;
	if (mkdirat(d->fd, META_DIR, 0700)) {
		snprintf(why, whylen, "cannot create %s/" META_DIR ": %s", path, strerror(errno));
		return -errno;
	}
	d->meta_fd = open_dir_at(d->fd, META_DIR);
	err = d->meta_fd < 0 ? -errno : 0;
	if (!err)
		err = give_away(d, d->fd);
	if (!err)
		err = give_away(d, d->meta_fd);
	if (err)
		snprintf(why, whylen, "cannot set up %s for uid %u: %s", path, d->uid, strerror(-err));
	return err;
}

int tr_trace_dir_create(struct tr_trace_dir *d, const char *path, int replace,
			char *why, size_t whylen)
{
	int err;

	*d = (struct tr_trace_dir)TR_TRACE_DIR_CLOSED;
	choose_owner(d);
	err = make_dir(path, replace, why, whylen);
	if (!err)
		err = open_created(d, path, why, whylen);
	if (err)
		tr_trace_dir_close(d);
	return err;
}

int tr_trace_dir_remove(const struct tr_trace_dir *d, const char *path)
{
	struct stat created, there;
	int err = clear_trace(d->fd, 0, 0);

	if (!err && (fstat(d->fd, &created) || lstat(path, &there)))
		err = -errno;
	if (!err && (created.st_dev != there.st_dev || created.st_ino != there.st_ino))
		err = -ESTALE;
	if (!err && rmdir(path))
		err = -errno;
	return err;
}

/* A new file, never an existing one nor through a link: fd or -errno. */
static int create_file(const struct tr_trace_dir *d, int at, const char *name)
{
	int fd = openat(at, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int err = fd < 0 ? -errno : give_away(d, fd);

	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

static FILE *create_stream(const struct tr_trace_dir *d, int at, const char *name)
{
	int fd = create_file(d, at, name), err;
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

FILE *tr_trace_dir_meta_file(const struct tr_trace_dir *d, const char *name)
{
	return create_stream(d, d->meta_fd, name);
}

FILE *tr_trace_dir_metadata(const struct tr_trace_dir *d)
{
	return create_stream(d, d->fd, METADATA);
}

int tr_trace_dir_stream_file(const struct tr_trace_dir *d, const char *channel, unsigned int cpu)
{
	char name[TR_CHANNEL_NAME_MAX + 16];

	snprintf(name, sizeof(name), "%s_%u", channel, cpu);
	return create_file(d, d->fd, name);
}

int tr_trace_dir_open_streams(const struct tr_trace_dir *d, const char *const *channels,
			      unsigned int nchannels, unsigned int ncpu, int *fd)
{
	unsigned int i;

	for (i = 0; i < nchannels * ncpu; i++) {
		fd[i] = tr_trace_dir_stream_file(d, channels[i / ncpu], i % ncpu);
		if (fd[i] < 0)
			return fd[i];
	}
	return 0;
}

int tr_trace_dir_write_channels(const struct tr_trace_dir *d, const char *const *channels,
				unsigned int nchannels)
{
	FILE *f = create_stream(d, d->meta_fd, TR_TRACE_CHANNELS);
	unsigned int i;

	if (!f)
		return -errno;
	for (i = 0; i < nchannels; i++)
		fprintf(f, "channel %u %s\n", i, channels[i]);
	return fclose(f) ? -errno : 0;
}

#define CONTROL "control"

/*
 * The address of the control socket inside the directory dir_fd, through
 * /proc/self/fd: short whatever the directory's path, and resolved from
 * the descriptor, not the path.
 */
static void control_address(struct sockaddr_un *sa, int dir_fd)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/" CONTROL, dir_fd);
}

int tr_trace_dir_listen(const struct tr_trace_dir *d)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa;
	mode_t mask;
	int err = 0;

	if (fd < 0)
		return -errno;
	control_address(&sa, d->meta_fd);
	mask = umask(077);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8))
		err = -errno;
	umask(mask);
	if (!err && d->give_away &&
	    fchownat(d->meta_fd, CONTROL, d->uid, d->gid, AT_SYMLINK_NOFOLLOW))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

void tr_trace_dir_unlisten(const struct tr_trace_dir *d, int fd)
{
	close(fd);
	if (d->meta_fd >= 0)
		unlinkat(d->meta_fd, CONTROL, 0);
}

/*
 * The control socket in the directory meta, opened as itself (O_PATH), not
 * through a symbolic link put in its place: a descriptor, or -errno
 * (-ENOTSOCK: something else is there).
 */
static int open_control(int meta)
{
	int fd = openat(meta, CONTROL, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISSOCK(st.st_mode))
		return fd;
	close(fd);
	return -ENOTSOCK;
}

int tr_trace_dir_connect(const char *path)
{
	int dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), meta, control, fd, err = 0;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (dir < 0)
		return -errno;
	meta = openat(dir, META_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(dir);
	if (meta < 0)
		return -errno;
	control = open_control(meta);
	close(meta);
	if (control < 0)
		return control;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", control);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = -errno;
	close(control);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

void tr_trace_dir_close(struct tr_trace_dir *d)
{
	if (d->meta_fd >= 0)
		close(d->meta_fd);
	if (d->fd >= 0)
		close(d->fd);
	d->fd = d->meta_fd = -1;
}
