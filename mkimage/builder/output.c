/*
 * output: the image is built in a file nobody else sees and appears at its name only when
 * complete. Where the file system offers O_TMPFILE the file has no name at all until the
 * end, so even a killed process leaves nothing; elsewhere a hidden ".NAME.PID-N" beside
 * the target is used and removed on every failure the process survives.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/path.h"
#include "mkimage/builder/builder_priv.h"

/* ".NAME.SUFFIX" in the folder of @path. */
static char *hidden_name(const char *path, const char *suffix)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	char *name = NULL;

	if (asprintf(&name, "%.*s.%s.%s", dirlen, path, base, suffix) < 0)
		return NULL;
	return name;
}

/* Creates a new hidden ".NAME.PID-N" (for the O_TMPFILE-less file systems, and to give an
 * unnamed file a name) by @make(name); returns the name in *@ret_name. */
static int hidden_create(struct build_output *o, int (*make)(struct build_output *, const char *),
			 char **ret_name)
{
	for (int attempt = 0; attempt < 1000; attempt++) {
		char suffix[32];
		snprintf(suffix, sizeof(suffix), "%d-%d", (int)getpid(), attempt);
		char *name = hidden_name(o->path, suffix);
		if (!name)
			return -ENOMEM;
		int rc = make(o, name);
		if (rc == 0) {
			*ret_name = name;
			return 0;
		}
		free(name);
		if (rc != -EEXIST)
			return rc;
	}
	return -EEXIST;
}

static int make_file(struct build_output *o, const char *name)
{
	o->fd = open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666);
	return o->fd < 0 ? -errno : 0;
}

static int make_link(struct build_output *o, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

static int open_unnamed_or_hidden(struct build_output *o)
{
	char *dir = path_dir(o->path);

	if (!dir)
		return -ENOMEM;
	/* an unnamed file gets its name through /proc/self/fd: without /proc, use a named one */
	o->fd = access("/proc/self/fd", X_OK) == 0 ? open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666)
						    : (errno = EOPNOTSUPP, -1);
	int saved = errno;
	free(dir);
	if (o->fd >= 0)
		return 0;
	if (saved != EOPNOTSUPP && saved != EISDIR && saved != EINVAL && saved != ENOENT)
		return -saved;
	return hidden_create(o, make_file, &o->tmp_path);
}

int build_output_create(struct build_output *o, const char *path, uint64_t size, struct diag *d)
{
	struct stat st;
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->size = size;
	/* rename() would replace a device node, a fifo or a link with the image: refuse */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return diag_error(d, "%s: exists and is not a regular file; sdimg writes image "
				     "files only", path);
	if (!(o->path = strdup(path)))
		return diag_error(d, "%s: out of memory", path);
	rc = open_unnamed_or_hidden(o);
	if (rc < 0) {
		diag_error(d, "%s: cannot create the image: %s", path, strerror(-rc));
		build_output_abort(o);
		return rc;
	}
	if (ftruncate(o->fd, (off_t)size) < 0) {
		rc = -errno;
		diag_error(d, "%s: cannot make a %llu-byte image: %s", path,
			   (unsigned long long)size, strerror(-rc));
		build_output_abort(o);
		return rc;
	}
	return 0;
}

static int sync_dir(const char *path)
{
	char *dir = path_dir(path);
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	free(dir);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

int build_output_commit(struct build_output *o, struct diag *d)
{
	int rc = 0;

	if (fsync(o->fd) < 0)
		rc = -errno;
	if (rc == 0 && !o->tmp_path) /* a name, so that rename() can replace the target */
		rc = hidden_create(o, make_link, &o->tmp_path);
	if (rc == 0 && rename(o->tmp_path, o->path) < 0)
		rc = -errno;
	if (rc < 0) {
		diag_error(d, "%s: cannot write the image: %s", o->path, strerror(-rc));
		build_output_abort(o);
		return rc;
	}
	free(o->tmp_path);
	o->tmp_path = NULL;
	sync_dir(o->path); /* durability of the name; the data is already safe */
	/* the image is in place and fsynced: a failing close() cannot undo that */
	if (close(o->fd) < 0)
		diag_warning(d, "%s: closing the image: %s", o->path, strerror(errno));
	o->fd = -1;
	free(o->path);
	o->path = NULL;
	return 0;
}

void build_output_abort(struct build_output *o)
{
	if (o->tmp_path)
		unlink(o->tmp_path);
	if (o->fd >= 0)
		close(o->fd);
	free(o->tmp_path);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}
