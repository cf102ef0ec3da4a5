// SPDX-License-Identifier: GPL-2.0
/*
 * An open /dev/sched_economy pins the module (fops->owner, module/dev.c):
 * unloading fails and breaks nothing, then succeeds once the file is
 * closed.
 *
 * delete_module(2) reports "in use" as EWOULDBLOCK (EAGAIN), see
 * try_stop_module() in kernel/module/main.c; EBUSY is reserved for a
 * module that is still initialising or already going.
 */
#include "econ_test.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "libsched_economy.h"

static int delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

static bool module_listed(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "sched_economy ", 14))
			found = true;
	fclose(f);
	return found;
}

static long long refcnt(void)
{
	return econ_read_number("/sys/module/sched_economy/refcnt");
}

/* Refused while open, with nothing broken; then unloads. */
static void busy_then_unload(struct __test_metadata *_metadata, int fd,
			     bool lib)
{
	long long credit;
	int ret, err;

	ASSERT_TRUE(module_listed());
	TH_LOG("refcnt with the device open: %lld", refcnt());
	EXPECT_EQ(1, refcnt());
	errno = 0;
	ret = delete_module("sched_economy");
	err = errno;
	TH_LOG("delete_module while open: %d, errno %d (%s)", ret, err,
	       strerror(err));
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EWOULDBLOCK, err);
	ret = system("rmmod sched_economy 2>/dev/null");
	TH_LOG("rmmod(8) while open: exit status %d", WEXITSTATUS(ret));
	EXPECT_NE(0, WEXITSTATUS(ret));
	EXPECT_TRUE(module_listed());
	/* Nothing broke: the device, the books and the knobs still answer. */
	if (lib) {
		EXPECT_EQ(0, sched_credit(&credit));
	} else {
		EXPECT_EQ(0, ioctl(fd, SCHED_ECONOMY_IOC_CREDIT, &credit));
	}
	EXPECT_NE(LLONG_MIN, econ_book("residue_ns"));
	EXPECT_EQ(0, econ_book("residue_ns"));
	EXPECT_LE(0, econ_read_knob("sched_economy"));

	if (lib)
		sched_economy_close();
	else
		close(fd);
	ret = delete_module("sched_economy");
	TH_LOG("delete_module after close: %d (%s)", ret,
	       ret ? strerror(errno) : "ok");
	EXPECT_EQ(0, ret);
	EXPECT_FALSE(module_listed());
	EXPECT_NE(0, access(SCHED_ECONOMY_DEVICE, F_OK));
	EXPECT_NE(0, access(ECON_BOOKS, F_OK));
	/* Reloads cleanly for whatever runs next. */
	ASSERT_EQ(0, econ_load_module());
	EXPECT_TRUE(module_listed());
	EXPECT_EQ(0, refcnt());
}

TEST(open_fd_pins_module)
{
	int fd;

	ASSERT_EQ(0, econ_load_module());
	fd = open(SCHED_ECONOMY_DEVICE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	busy_then_unload(_metadata, fd, false);
}

TEST(library_fd_pins_module)
{
	long long credit;

	ASSERT_EQ(0, econ_load_module());
	ASSERT_EQ(0, sched_credit(&credit));
	busy_then_unload(_metadata, -1, true);
}

TEST_HARNESS_MAIN
