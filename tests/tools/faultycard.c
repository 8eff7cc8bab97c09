/* SPDX-License-Identifier: MIT */
/*
 * faultycard: a FUSE file system holding one file, MOUNTPOINT/card, that behaves like a
 * faulty SD card when a loop device is put over it (a test driver of the flash tests).
 *
 *   faultycard --store FILE [FAULT...] MOUNTPOINT [FUSE OPTIONS]
 *
 * The card's bytes live in the regular file FILE (its size is the card's, unless --size).
 * Reads and writes bypass the kernel's page cache (direct_io), so every read reaches this
 * program and shows what the "card" holds, not what was last written. Faults:
 *   --size N              the size the card claims (default: the store's size)
 *   --wrap N              a fake-capacity card: byte offsets from N on land on offset % N
 *   --drop A:B            writes to bytes [A, B) succeed but store nothing there
 *   --flip OFF            once byte OFF has been written, it reads back inverted (~byte)
 *   --eio-write A:B       a write touching bytes [A, B) fails with EIO (nothing stored)
 *   --eio-read A:B        a read touching bytes [A, B) fails with EIO
 *   --slow-ms MS          every write waits MS milliseconds first, one write at a time
 *   --hang-at OFF         a write touching byte OFF blocks until SIGUSR1 arrives, the file
 *                         system is unmounted, or --hang-max seconds pass (default 120)
 *   --hang-read-at OFF    the same for a read: a slow image file, which holds its reader
 *   --log FILE            one line per event: "write OFF LEN", "hang OFF", "released OFF",
 *                         "readlink TARGET"
 *   --link FIRST --relink THEN
 *                         MOUNTPOINT/link, a symbolic link to FIRST the first time it is
 *                         followed (or read), to THEN ever after: a name re-pointed
 *                         between two looks, without a race (the kernel asks for a FUSE
 *                         link's target each time it follows it)
 * Offsets and sizes are bytes, with an optional K, M or G suffix (binary).
 * FUSE options follow the mount point (-f to stay in the foreground, as the tests run it).
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CARD "/card"
#define LINK "/link"
#define NONE UINT64_MAX

struct span {
	uint64_t start, end; /* [start, end); start == NONE when unset */
};

static struct {
	int store;
	uint64_t size, wrap;
	struct span drop, eio_write, eio_read;
	uint64_t flip, hang_at, hang_read_at;
	unsigned slow_ms, hang_max;
	bool flipped;
	const char *link_first, *link_then;
	unsigned link_reads;
	FILE *log;
	pthread_mutex_t lock, log_lock, slow_lock; /* the store and the flip; the log; slow */
} card = {
	.store = -1,
	.wrap = NONE,
	.drop = { NONE, NONE },
	.eio_write = { NONE, NONE },
	.eio_read = { NONE, NONE },
	.flip = NONE,
	.hang_at = NONE,
	.hang_read_at = NONE,
	.hang_max = 120,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.log_lock = PTHREAD_MUTEX_INITIALIZER,
	.slow_lock = PTHREAD_MUTEX_INITIALIZER,
};

static volatile sig_atomic_t released;

static void on_usr1(int sig)
{
	(void)sig;
	released = 1;
}

static void note(const char *fmt, ...)
{
	va_list ap;

	if (!card.log)
		return;
	pthread_mutex_lock(&card.log_lock);
	va_start(ap, fmt);
	vfprintf(card.log, fmt, ap);
	va_end(ap);
	fputc('\n', card.log);
	fflush(card.log);
	pthread_mutex_unlock(&card.log_lock);
}

static bool touches(const struct span *s, uint64_t off, uint64_t len)
{
	return s->start != NONE && off < s->end && s->start < off + len;
}

static void sleep_ms(unsigned ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/* Where byte @off of the card is kept in the store. */
static uint64_t place(uint64_t off)
{
	return card.wrap == NONE ? off : off % card.wrap;
}

/* The store's bytes for card bytes [@off, @off + @len), split where the card wraps. */
static int store_io(bool write, char *buf, uint64_t len, uint64_t off)
{
	while (len) {
		uint64_t at = place(off), n = len;
		if (card.wrap != NONE && n > card.wrap - at)
			n = card.wrap - at;
		ssize_t r = write ? pwrite(card.store, buf, n, (off_t)at)
				  : pread(card.store, buf, n, (off_t)at);
		if (r < 0)
			return -errno;
		if (r == 0) { /* past the store's end: a short store reads as zeros */
			if (write)
				return -EIO;
			memset(buf, 0, n);
			r = (ssize_t)n;
		}
		buf += r;
		len -= (uint64_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int card_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (card.link_first && strcmp(path, LINK) == 0) {
		st->st_mode = S_IFLNK | 0777;
		st->st_nlink = 1;
		st->st_size = (off_t)strlen(card.link_first);
		return 0;
	}
	if (strcmp(path, CARD) != 0)
		return -ENOENT;
	st->st_mode = S_IFREG | 0600;
	st->st_nlink = 1;
	st->st_size = (off_t)card.size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)(card.size / 512);
	return 0;
}

static int card_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, &CARD[1], NULL, 0, 0);
	if (card.link_first)
		fill(buf, &LINK[1], NULL, 0, 0);
	return 0;
}

/* --link: FIRST once, THEN after. */
static int card_readlink(const char *path, char *buf, size_t len)
{
	if (!card.link_first || strcmp(path, LINK) != 0 || len == 0)
		return -ENOENT;
	pthread_mutex_lock(&card.lock);
	const char *to = card.link_reads++ ? card.link_then : card.link_first;
	pthread_mutex_unlock(&card.lock);
	note("readlink %s", to);
	snprintf(buf, len, "%s", to);
	return 0;
}

static int card_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, CARD) != 0)
		return -ENOENT;
	fi->direct_io = 1; /* every read and write comes here, none is answered from a cache */
	return 0;
}

static int card_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)fi;
	if (strcmp(path, CARD) != 0)
		return -ENOENT;
	return (uint64_t)size == card.size ? 0 : -EPERM; /* a card does not change its size */
}

static void hang(uint64_t off);

static int card_read(const char *path, char *buf, size_t len, off_t off, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	if ((uint64_t)off >= card.size)
		return 0;
	if (len > card.size - (uint64_t)off)
		len = (size_t)(card.size - (uint64_t)off);
	if (card.hang_read_at != NONE && card.hang_read_at >= (uint64_t)off &&
	    card.hang_read_at < (uint64_t)off + len)
		hang((uint64_t)off);
	if (touches(&card.eio_read, (uint64_t)off, len)) {
		note("eio-read %jd %zu", (intmax_t)off, len);
		return -EIO;
	}
	pthread_mutex_lock(&card.lock);
	int rc = store_io(false, buf, len, (uint64_t)off);
	if (rc == 0 && card.flipped && card.flip >= (uint64_t)off &&
	    card.flip < (uint64_t)off + len)
		buf[card.flip - (uint64_t)off] = (char)~buf[card.flip - (uint64_t)off];
	pthread_mutex_unlock(&card.lock);
	return rc < 0 ? rc : (int)len;
}

/* A write touching --hang-at waits for SIGUSR1, the unmount or --hang-max seconds. */
static void hang(uint64_t off)
{
	struct fuse_context *c = fuse_get_context();
	struct fuse_session *se = c && c->fuse ? fuse_get_session(c->fuse) : NULL;
	time_t until = time(NULL) + (time_t)card.hang_max;

	note("hang %" PRIu64, off);
	while (!released && time(NULL) < until && !(se && fuse_session_exited(se)))
		sleep_ms(50);
	note("released %" PRIu64, off);
}

static int card_write(const char *path, const char *data, size_t len, off_t off,
		      struct fuse_file_info *fi)
{
	uint64_t o = (uint64_t)off;
	char *copy;

	(void)path;
	(void)fi;
	if (o >= card.size || len > card.size - o)
		return -ENOSPC;
	if (card.slow_ms) { /* one write at a time, as a card takes them */
		pthread_mutex_lock(&card.slow_lock);
		sleep_ms(card.slow_ms);
		pthread_mutex_unlock(&card.slow_lock);
	}
	if (card.hang_at != NONE && card.hang_at >= o && card.hang_at < o + len)
		hang(o);
	if (touches(&card.eio_write, o, len)) {
		note("eio-write %" PRIu64 " %zu", o, len);
		return -EIO;
	}
	note("write %" PRIu64 " %zu", o, len);
	if (!(copy = malloc(len)))
		return -ENOMEM;
	memcpy(copy, data, len);
	pthread_mutex_lock(&card.lock);
	int rc = 0;
	/* the bytes before, inside and after the dropped span: only those outside are kept */
	uint64_t keep_end = touches(&card.drop, o, len)
				    ? (card.drop.start > o ? card.drop.start : o)
				    : o + len;
	if (keep_end > o)
		rc = store_io(true, copy, keep_end - o, o);
	if (rc == 0 && keep_end < o + len) {
		uint64_t resume = card.drop.end < o + len ? card.drop.end : o + len;
		note("dropped %" PRIu64 " %" PRIu64, keep_end, resume - keep_end);
		if (resume < o + len)
			rc = store_io(true, copy + (resume - o), o + len - resume, resume);
	}
	if (rc == 0 && card.flip != NONE && card.flip >= o && card.flip < o + len)
		card.flipped = true;
	pthread_mutex_unlock(&card.lock);
	free(copy);
	return rc < 0 ? rc : (int)len;
}

static int card_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	return (datasync ? fdatasync(card.store) : fsync(card.store)) < 0 ? -errno : 0;
}

static int card_flush(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	return 0;
}

static void card_destroy(void *data)
{
	(void)data;
	released = 1;
}

static const struct fuse_operations ops = {
	.getattr = card_getattr,
	.readdir = card_readdir,
	.readlink = card_readlink,
	.open = card_open,
	.truncate = card_truncate,
	.read = card_read,
	.write = card_write,
	.fsync = card_fsync,
	.flush = card_flush,
	.destroy = card_destroy,
};

static int number(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
	if (shift)
		end++;
	if (errno || end == s || *end || s[0] == '-' || x > (UINT64_MAX >> shift))
		return -1;
	*v = (uint64_t)x << shift;
	return 0;
}

static int span(const char *s, struct span *sp)
{
	char a[64];
	const char *colon = strchr(s, ':');

	if (!colon || (size_t)(colon - s) >= sizeof(a))
		return -1;
	memcpy(a, s, (size_t)(colon - s));
	a[colon - s] = '\0';
	return number(a, &sp->start) < 0 || number(colon + 1, &sp->end) < 0 || sp->end <= sp->start
		       ? -1
		       : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: faultycard --store FILE [--size N] [--wrap N] [--drop A:B] "
			"[--flip OFF] [--eio-write A:B] [--eio-read A:B] [--slow-ms MS] "
			"[--hang-at OFF] [--hang-read-at OFF] [--hang-max S] [--log FILE] [--link "
			"FIRST --relink THEN] "
			"MOUNTPOINT [FUSE OPTIONS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *store = NULL;
	uint64_t v;
	int i = 1;

	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		const char *opt = argv[i] + 2, *arg = argv[i + 1];
		int bad = 0;
		if (!strcmp(opt, "store"))
			store = arg;
		else if (!strcmp(opt, "size"))
			bad = number(arg, &card.size);
		else if (!strcmp(opt, "wrap"))
			bad = number(arg, &card.wrap) < 0 || card.wrap == 0;
		else if (!strcmp(opt, "drop"))
			bad = span(arg, &card.drop);
		else if (!strcmp(opt, "flip"))
			bad = number(arg, &card.flip);
		else if (!strcmp(opt, "eio-write"))
			bad = span(arg, &card.eio_write);
		else if (!strcmp(opt, "eio-read"))
			bad = span(arg, &card.eio_read);
		else if (!strcmp(opt, "slow-ms"))
			bad = number(arg, &v) < 0 || v > 60000 || !(card.slow_ms = (unsigned)v);
		else if (!strcmp(opt, "hang-at"))
			bad = number(arg, &card.hang_at);
		else if (!strcmp(opt, "hang-read-at"))
			bad = number(arg, &card.hang_read_at);
		else if (!strcmp(opt, "hang-max"))
			bad = number(arg, &v) < 0 || v > 86400 || !(card.hang_max = (unsigned)v);
		else if (!strcmp(opt, "link"))
			card.link_first = arg;
		else if (!strcmp(opt, "relink"))
			card.link_then = arg;
		else if (!strcmp(opt, "log"))
			bad = !(card.log = fopen(arg, "a"));
		else
			bad = 1;
		if (bad) {
			fprintf(stderr, "faultycard: bad option --%s %s\n", opt, arg);
			return usage();
		}
	}
	if (!store || i >= argc || !card.link_first != !card.link_then)
		return usage();
	struct stat st;
	if ((card.store = open(store, O_RDWR | O_CLOEXEC)) < 0 || fstat(card.store, &st) < 0) {
		perror(store);
		return 1;
	}
	if (!card.size)
		card.size = (uint64_t)st.st_size;
	if (!card.size || card.size % 512) {
		fprintf(stderr,
			"faultycard: the card's size %" PRIu64 " is not a positive multiple "
			"of 512\n",
			card.size);
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	/* fuse_main sees the program name, the mount point and the FUSE options */
	argv[i - 1] = argv[0];
	return fuse_main(argc - i + 1, argv + i - 1, &ops, NULL);
}
