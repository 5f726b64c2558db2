/*
 * outfile.c: whole-file output (outfile.h).  The replace path is the
 * classic one (write a temporary in the same directory, fsync, rename(2):
 * POSIX makes the rename atomic within one file system); what is added is
 * looking at the node first, so that a device, a FIFO or a descriptor alias
 * is written into instead of being replaced by a regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

#define LINK_HOPS_MAX 40   /* as Linux's MAXSYMLINKS */
#define TMP_TRIES 100

/* How an output path is written. */
enum out_kind {
	OUT_REPLACE,    /* regular file or nothing: temporary + rename */
	OUT_DEVICE,     /* character device or FIFO: open and write */
	OUT_FD,         /* an alias of one of our descriptors: dup it */
};

struct out_node {
	enum out_kind kind;
	char *target;   /* malloc'd; for OUT_FD unused (NULL) */
	int fd;         /* OUT_FD: the descriptor named */
	bool exists;    /* OUT_REPLACE: target exists (st is valid) */
	struct stat st;
};

static int fail(struct tcpsim_err *err, const char *what, const char *path, bool is_stdout, int e)
{
	if (is_stdout)
		return err_set(err, TCPSIM_EIO, "cannot write standard output: %s", strerror(e ? e : EIO));
	return err_set(err, TCPSIM_EIO, "cannot write %s%s'%s': %s", what ? what : "", what ? " " : "", path,
		       strerror(e ? e : EIO));
}

/* "/dev/stdout", "/dev/fd/3", "/proc/self/fd/1", "/proc/PID/fd/1" (ours):
 * the descriptor, or -1. */
static int fd_alias(const char *p)
{
	static const char *const prefix[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
	char own[64];
	long n;

	if (strcmp(p, "/dev/stdin") == 0)
		return 0;
	if (strcmp(p, "/dev/stdout") == 0)
		return 1;
	if (strcmp(p, "/dev/stderr") == 0)
		return 2;
	snprintf(own, sizeof(own), "/proc/%ld/fd/", (long)getpid());
	for (size_t i = 0; i <= sizeof(prefix) / sizeof(prefix[0]); i++) {
		const char *pre = i < sizeof(prefix) / sizeof(prefix[0]) ? prefix[i] : own;
		size_t l = strlen(pre);
		if (strncmp(p, pre, l) == 0 && parse_long_in(p + l, 0, INT_MAX, &n))
			return (int)n;
	}
	return -1;
}

/* Follow path's symbolic links (the last component's) and classify the
 * node.  TCPSIM_OK with *node filled (free node->target), else TCPSIM_EIO. */
static int resolve(const char *path, const char *what, struct out_node *node, struct tcpsim_err *err)
{
	char *cur = xstrdup(path);
	int hops = 0;

	memset(node, 0, sizeof(*node));
	node->fd = -1;
	for (;;) {
		struct stat st;
		int fd = fd_alias(cur);
		if (fd >= 0) {
			node->kind = OUT_FD;
			node->fd = fd;
			free(cur);
			return TCPSIM_OK;
		}
		if (lstat(cur, &st) != 0) {
			if (errno != ENOENT) {
				int e = errno;
				free(cur);
				return fail(err, what, path, false, e);
			}
			node->kind = OUT_REPLACE;   /* a new file (also a dangling link's target) */
			node->target = cur;
			return TCPSIM_OK;
		}
		if (S_ISLNK(st.st_mode)) {
			char buf[PATH_MAX];
			ssize_t n = readlink(cur, buf, sizeof(buf) - 1);
			if (n < 0 || ++hops > LINK_HOPS_MAX) {
				int e = n < 0 ? errno : ELOOP;
				free(cur);
				return fail(err, what, path, false, e);
			}
			buf[n] = '\0';
			if (buf[0] == '/' || !strchr(cur, '/')) {
				free(cur);
				cur = xstrdup(buf);
			} else {   /* relative to the link's directory */
				size_t dl = (size_t)(strrchr(cur, '/') - cur) + 1;
				char *next = xmalloc(dl + (size_t)n + 1);
				memcpy(next, cur, dl);
				memcpy(next + dl, buf, (size_t)n + 1);
				free(cur);
				cur = next;
			}
			continue;
		}
		node->target = cur;
		node->st = st;
		if (S_ISREG(st.st_mode)) {
			node->kind = OUT_REPLACE;
			node->exists = true;
			return TCPSIM_OK;
		}
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			node->kind = OUT_DEVICE;
			return TCPSIM_OK;
		}
		free(cur);
		node->target = NULL;
		if (S_ISDIR(st.st_mode))
			return fail(err, what, path, false, EISDIR);
		return err_set(err, TCPSIM_EIO,
			       "cannot write %s%s'%s': not a regular file, character device or FIFO (a block device or socket is never an output)",
			       what ? what : "", what ? " " : "", path);
	}
}

/* Create target's temporary exclusively; its name into *tmp (malloc'd).
 * The fd, or -1 with errno set. */
static int tmp_create(const char *target, char **tmp)
{
	size_t n = strlen(target) + 48;
	char *name = xmalloc(n);
	int fd = -1;

	for (int k = 0; k < TMP_TRIES && fd < 0; k++) {
		if (k == 0)
			snprintf(name, n, "%s.tmp.%ld", target, (long)getpid());
		else
			snprintf(name, n, "%s.tmp.%ld.%d", target, (long)getpid(), k);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(name);
		errno = e;
		return -1;
	}
	*tmp = name;
	return fd;
}

static void release(struct outfile *o)
{
	free(o->path);
	free(o->target);
	free(o->tmp);
	free(o->what);
	memset(o, 0, sizeof(*o));
}

int outfile_open(struct outfile *o, const char *path, const char *what, struct tcpsim_err *err)
{
	struct out_node node;
	int fd, rc;

	memset(o, 0, sizeof(*o));
	o->path = xstrdup(path);
	o->what = what ? xstrdup(what) : NULL;
	o->is_stdout = strcmp(path, "-") == 0;
	if (o->is_stdout) {
		node = (struct out_node){.kind = OUT_FD, .fd = STDOUT_FILENO};
	} else if ((rc = resolve(path, what, &node, err)) != TCPSIM_OK) {
		release(o);
		return rc;
	}
	o->target = node.target;
	switch (node.kind) {
	case OUT_FD:   /* what stdio holds for the same descriptor goes first */
		if (node.fd == STDOUT_FILENO)
			fflush(stdout);
		else if (node.fd == STDERR_FILENO)
			fflush(stderr);
		fd = fcntl(node.fd, F_DUPFD_CLOEXEC, 0);
		break;
	case OUT_DEVICE:
		fd = open(node.target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		break;
	default:
		fd = tmp_create(node.target, &o->tmp);
		if (fd >= 0 && node.exists) {
			/* keep what the replaced file had; best effort (not owner, no CAP_CHOWN) */
			if ((node.st.st_uid != geteuid() || node.st.st_gid != getegid()) &&
			    fchown(fd, node.st.st_uid, node.st.st_gid) != 0) {
				/* the new file is ours then */
			}
			if (fchmod(fd, node.st.st_mode & 07777) != 0) {
				/* as created, 0666 less the umask */
			}
		}
		break;
	}
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		rc = fail(err, o->what, o->path, o->is_stdout, e);
		outfile_abort(o);
		return rc;
	}
	return TCPSIM_OK;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

/* fsync the directory holding path, so the rename itself is on disk. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xmalloc((size_t)(slash - path) + 2) : xstrdup(".");
	int fd;

	if (slash) {
		size_t l = slash == path ? 1 : (size_t)(slash - path);
		memcpy(dir, path, l);
		dir[l] = '\0';
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);   /* some file systems refuse; the data are synced already */
		close(fd);
	}
	free(dir);
}

int outfile_commit(struct outfile *o, struct tcpsim_err *err)
{
	int e = 0;

	if (!o->f) {
		release(o);
		return err_set(err, TCPSIM_EIO, "outfile_commit without outfile_open");
	}
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	if (!e && o->tmp && fsync(fileno(o->f)) != 0)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (!e && o->tmp) {
		if (rename(o->tmp, o->target) != 0)
			e = errno;
		else {
			free(o->tmp);
			o->tmp = NULL;
			sync_dir(o->target);
		}
	}
	if (e) {
		int rc = fail(err, o->what, o->path, o->is_stdout, e);
		outfile_abort(o);
		return rc;
	}
	release(o);
	return TCPSIM_OK;
}

int outfile_write_whole(const char *path, const char *what, const void *buf, size_t len,
			struct tcpsim_err *err)
{
	struct outfile o;
	int rc = outfile_open(&o, path, what, err);

	if (rc != TCPSIM_OK)
		return rc;
	if (len && fwrite(buf, 1, len, o.f) != len) {
		rc = fail(err, what, path, o.is_stdout, errno);
		outfile_abort(&o);
		return rc;
	}
	return outfile_commit(&o, err);
}

int outfile_probe(const char *path, const char *what, struct tcpsim_err *err)
{
	struct out_node node;
	char *tmp = NULL;
	int rc, fd;

	if (strcmp(path, "-") == 0)
		return TCPSIM_OK;
	if ((rc = resolve(path, what, &node, err)) != TCPSIM_OK)
		return rc;
	switch (node.kind) {
	case OUT_FD:
		if (fcntl(node.fd, F_GETFD) < 0)
			rc = fail(err, what, path, false, errno);
		break;
	case OUT_DEVICE:
		if (access(node.target, W_OK) != 0)
			rc = fail(err, what, path, false, errno);
		break;
	default:
		fd = tmp_create(node.target, &tmp);
		if (fd < 0) {
			rc = fail(err, what, path, false, errno);
			break;
		}
		close(fd);
		unlink(tmp);
		free(tmp);
		break;
	}
	free(node.target);
	return rc;
}

int outfile_check_inputs(const char *path, const char *const *inputs, int n, struct tcpsim_err *err)
{
	struct stat out, in;

	if (strcmp(path, "-") == 0 || stat(path, &out) != 0 || !S_ISREG(out.st_mode))
		return TCPSIM_OK;
	for (int i = 0; i < n; i++)
		if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return err_set(err, TCPSIM_EUSAGE,
				       "output '%s' is the input '%s': it would be replaced by its own result; write elsewhere",
				       path, inputs[i]);
	return TCPSIM_OK;
}
