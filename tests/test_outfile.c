/*
 * test_outfile: the whole-file writer (model/base/outfile.c).
 *
 * Each case builds the node in a fresh directory (a file, a symlink, a
 * FIFO, a pipe behind /dev/fd/N, a device node when root) and checks, with
 * lstat, what is there afterwards and what it holds: the node kind never
 * changes, a replaced file is whole or untouched, no temporary stays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "err.h"
#include "outfile.h"
#include "util.h"

struct fixture {
	char dir[64];
	char p[256], q[256];
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_outfile.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	char p[400];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", fx->dir, e->d_name);
		if (unlink(p) != 0)
			rmdir(p);
	}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* Entries in the fixture's directory. */
static int n_entries(const struct fixture *fx)
{
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_holds(const char *path, const char *text)
{
	char buf[256] = {0};
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void test_new_and_replaced_file(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};
	struct stat st;

	snprintf(fx->p, sizeof(fx->p), "%s/out.txt", fx->dir);
	assert_int_equal(outfile_write_whole(fx->p, NULL, "one\n", 4, &err), TCPSIM_OK);
	assert_holds(fx->p, "one\n");
	assert_int_equal(chmod(fx->p, 0600), 0);
	assert_int_equal(outfile_write_whole(fx->p, NULL, "two\n", 4, &err), TCPSIM_OK);
	assert_holds(fx->p, "two\n");
	assert_int_equal(lstat(fx->p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(n_entries(fx), 1);   /* no temporary left */
}

static void test_abort_leaves_target(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};
	struct outfile o;

	snprintf(fx->p, sizeof(fx->p), "%s/keep.txt", fx->dir);
	write_text(fx->p, "old\n");
	assert_int_equal(outfile_open(&o, fx->p, NULL, &err), TCPSIM_OK);
	fputs("half a file", o.f);
	assert_int_equal(n_entries(fx), 2);   /* the target and its temporary */
	outfile_abort(&o);
	assert_holds(fx->p, "old\n");
	assert_int_equal(n_entries(fx), 1);
	assert_null(o.f);
}

static void test_symlink_followed(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};
	struct stat st;
	char link[256];

	snprintf(fx->p, sizeof(fx->p), "%s/target.txt", fx->dir);
	snprintf(link, sizeof(link), "%s/link", fx->dir);
	write_text(fx->p, "old\n");
	assert_int_equal(symlink("target.txt", link), 0);   /* relative to the link's directory */
	assert_int_equal(outfile_write_whole(link, NULL, "new\n", 4, &err), TCPSIM_OK);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_holds(fx->p, "new\n");
	assert_int_equal(n_entries(fx), 2);

	/* a dangling link creates its target */
	snprintf(fx->q, sizeof(fx->q), "%s/dangling", fx->dir);
	assert_int_equal(symlink("created.txt", fx->q), 0);
	assert_int_equal(outfile_write_whole(fx->q, NULL, "c\n", 2, &err), TCPSIM_OK);
	assert_int_equal(lstat(fx->q, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(fx->p, sizeof(fx->p), "%s/created.txt", fx->dir);
	assert_holds(fx->p, "c\n");

	/* a loop of links: one message, nothing written */
	snprintf(fx->p, sizeof(fx->p), "%s/loop", fx->dir);
	assert_int_equal(symlink("loop", fx->p), 0);
	assert_int_equal(outfile_write_whole(fx->p, NULL, "x", 1, &err), TCPSIM_EIO);
	assert_non_null(strstr(err.msg, "cannot write"));
	assert_int_equal(lstat(fx->p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

static void test_fifo_written_into(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};
	struct stat st;
	char buf[16] = {0};

	snprintf(fx->p, sizeof(fx->p), "%s/fifo", fx->dir);
	assert_int_equal(mkfifo(fx->p, 0600), 0);
	/* our own reader end, opened first, so the writer's open does not wait */
	int rd = open(fx->p, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(outfile_write_whole(fx->p, NULL, "report\n", 7, &err), TCPSIM_OK);
	assert_int_equal(read(rd, buf, sizeof(buf) - 1), 7);
	assert_string_equal(buf, "report\n");
	close(rd);
	assert_int_equal(lstat(fx->p, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(n_entries(fx), 1);
	/* the probe of a FIFO opens nothing (it would wait for a reader) */
	assert_int_equal(outfile_probe(fx->p, NULL, &err), TCPSIM_OK);
}

static void test_fd_alias(void **state)
{
	struct tcpsim_err err = {0};
	int p[2];
	char path[64], buf[16] = {0};

	(void)state;
	assert_int_equal(pipe(p), 0);
	snprintf(path, sizeof(path), "/dev/fd/%d", p[1]);
	assert_int_equal(outfile_write_whole(path, NULL, "piped\n", 6, &err), TCPSIM_OK);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	assert_int_equal(outfile_write_whole(path, NULL, "again\n", 6, &err), TCPSIM_OK);
	close(p[1]);
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 12);
	assert_string_equal(buf, "piped\nagain\n");
	close(p[0]);
}

static void test_device(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};
	struct stat st;
	const char *dev = "/dev/null";

	if (geteuid() == 0) {   /* a node of our own: /dev/null is not put at risk */
		snprintf(fx->p, sizeof(fx->p), "%s/null", fx->dir);
		if (mknod(fx->p, S_IFCHR | 0666, makedev(1, 3)) != 0)
			skip();
		dev = fx->p;
	}
	assert_int_equal(outfile_probe(dev, NULL, &err), TCPSIM_OK);
	assert_int_equal(outfile_write_whole(dev, NULL, "gone\n", 5, &err), TCPSIM_OK);
	assert_int_equal(lstat(dev, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 1);
	assert_int_equal(minor(st.st_rdev), 3);

	/* a full device: the write fails at the flush, one message, status EIO */
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(outfile_write_whole("/dev/full", "profile", "x\n", 2, &err), TCPSIM_EIO);
		assert_string_equal(err.msg, "cannot write profile '/dev/full': No space left on device");
	}
}

static void test_refused_nodes(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};
	struct outfile o;

	assert_int_equal(outfile_open(&o, fx->dir, NULL, &err), TCPSIM_EIO);
	assert_non_null(strstr(err.msg, "Is a directory"));
	assert_null(o.f);
	err_clear(&err);
	snprintf(fx->p, sizeof(fx->p), "%s/no/such/dir/x.txt", fx->dir);
	assert_int_equal(outfile_probe(fx->p, "recorded runs", &err), TCPSIM_EIO);
	assert_non_null(strstr(err.msg, "cannot write recorded runs '"));
	assert_non_null(strstr(err.msg, "No such file or directory"));
	assert_int_equal(n_entries(fx), 0);
}

static void test_probe_leaves_nothing(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};

	snprintf(fx->p, sizeof(fx->p), "%s/p.cfg", fx->dir);
	assert_int_equal(outfile_probe(fx->p, "profile", &err), TCPSIM_OK);
	assert_int_equal(n_entries(fx), 0);
	write_text(fx->p, "old\n");
	assert_int_equal(outfile_probe(fx->p, "profile", &err), TCPSIM_OK);
	assert_holds(fx->p, "old\n");
	assert_int_equal(n_entries(fx), 1);
	if (geteuid() != 0) {   /* root writes into a read-only directory anyway */
		assert_int_equal(chmod(fx->dir, 0500), 0);
		assert_int_equal(outfile_probe(fx->p, "profile", &err), TCPSIM_EIO);
		assert_non_null(strstr(err.msg, "Permission denied"));
		assert_int_equal(chmod(fx->dir, 0700), 0);
	}
}

static void test_check_inputs(void **state)
{
	struct fixture *fx = *state;
	struct tcpsim_err err = {0};
	char sym[256], hard[256], other[256];

	snprintf(fx->p, sizeof(fx->p), "%s/in.cfg", fx->dir);
	snprintf(sym, sizeof(sym), "%s/link.cfg", fx->dir);
	snprintf(hard, sizeof(hard), "%s/hard.cfg", fx->dir);
	snprintf(other, sizeof(other), "%s/other.cfg", fx->dir);
	write_text(fx->p, "[run]\n");
	write_text(other, "[run]\n");
	assert_int_equal(symlink("in.cfg", sym), 0);
	assert_int_equal(link(fx->p, hard), 0);
	const char *in[] = {other, fx->p};

	assert_int_equal(outfile_check_inputs(fx->p, in, 2, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "is the input"));
	err_clear(&err);
	assert_int_equal(outfile_check_inputs(sym, in, 2, &err), TCPSIM_EUSAGE);
	err_clear(&err);
	assert_int_equal(outfile_check_inputs(hard, in, 2, &err), TCPSIM_EUSAGE);
	err_clear(&err);
	assert_int_equal(outfile_check_inputs(fx->p, in, 1, &err), TCPSIM_OK);
	snprintf(fx->q, sizeof(fx->q), "%s/new.cfg", fx->dir);
	assert_int_equal(outfile_check_inputs(fx->q, in, 2, &err), TCPSIM_OK);
	assert_int_equal(outfile_check_inputs("-", in, 2, &err), TCPSIM_OK);
	assert_int_equal(err.code, TCPSIM_OK);
	assert_holds(fx->p, "[run]\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_and_replaced_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_leaves_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_written_into, setup, teardown),
		cmocka_unit_test(test_fd_alias),
		cmocka_unit_test_setup_teardown(test_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_inputs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
