/* Unit tests of the stack-frame reader of `logs` (analyze/logs/inputs/
 * frames.c: the frame formats, the names of kb/nccl_frames.c, mangled C++
 * names) and of its rule (analyze/logs/rules/frames.c: the most specific
 * stage speaks; no causes beside a root failure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/logs/inputs/frames.h"
#include "analyze/nccllog.h"
#include "kb/nccl_frames.h"
#include "model/result.h"
#include "logslines.h"

#include <stdlib.h>
#include <string.h>

static bool shape(const char *s)
{
	return nl_frame_shape(s, strlen(s));
}

static int kind(const char *s)
{
	const struct nccl_frame *r = nl_frame_row(s, strlen(s));
	return r ? (int)r->kind : -1;
}

static void test_shapes(void **state)
{
	(void)state;
	/* gdb, with and without an address */
	assert_true(shape("#4  0x00007f3b1c31c2a2 in shmRecvSetup () from /usr/lib/x86_64-linux-gnu/libnccl.so.2"));
	assert_true(shape("#0  ncclCommInitRank (newcomm=0x7ffd, nranks=2) at init.cc:1789"));
	/* py-spy, Python and native frames */
	assert_true(shape("    barrier (torch/distributed/distributed_c10d.py:3689)"));
	assert_true(shape("    ncclProxyService (libnccl.so.2)"));
	/* PyTorch's C++ stack, a glibc back-trace, numbered frames, sanitizer */
	assert_true(shape("frame #7: c10d::ProcessGroupNCCL::getNCCLComm(std::string const&) + 0x1a4 (0x7f in libtorch_cuda.so)"));
	assert_true(shape("/usr/lib/x86_64-linux-gnu/libnccl.so.2(ncclIbRegMr+0x52)[0x7f3b1c2f1a3d]"));
	assert_true(shape("15      0x7fbac5e867d9 /usr/lib/python3/bindings.so(+0x2c7d9) [0x7fbac5e867d9]"));
	assert_true(shape("=========     Host Frame:ncclLaunchKernel [0x8e1c2] in libnccl.so.2"));
	/* Python's traceback and faulthandler */
	assert_true(shape("  File \"/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py\", line 3689, in barrier"));
	assert_true(shape("  File \"/opt/torch/distributed/distributed_c10d.py\", line 1201 in _store_based_barrier"));
	/* not frames */
	assert_false(shape("node1:1234:1234 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC"));
	assert_false(shape("#include <nccl.h>"));
	assert_false(shape("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error"));
	assert_false(shape("    the job hangs (again)"));
	assert_false(shape("12 GPUs were used"));
	assert_false(shape(""));
}

static void test_names(void **state)
{
	(void)state;
	/* the most specific name of a line speaks */
	assert_int_equal(kind("#4  0x00007f3b in shmRecvSetup () from libnccl.so.2"), NFK_SHM);
	assert_int_equal(kind("    p2pRecvConnect (libnccl.so.2)"), NFK_P2P);
	/* C++ names: the last part, and every part of a mangled one */
	assert_int_equal(kind("frame #7: c10d::ProcessGroupNCCL::getNCCLComm(std::string const&) + 0x1a4"), NFK_INIT);
	assert_int_equal(kind("frame #3: _ZN4c10d16ProcessGroupNCCL11getNCCLCommERKSsRKN3c106DeviceE + 0x1a4 (0x7f in libtorch_cuda.so)"),
			 NFK_INIT);
	assert_int_equal(kind("libnccl.so.2(_Z18bootstrapAllGatherPvS_i+0x52)[0x7f]"), NFK_BOOTSTRAP);
	/* a mangled length past the name's end is no name */
	assert_int_equal(kind("x(_Z99ncclIbInit+0x1)[0x1]"), -1);
	/* torch.distributed's collectives only in a frame of its file */
	assert_int_equal(kind("    barrier (torch/distributed/distributed_c10d.py:3689)"), NFK_PY_COLLECTIVE);
	assert_int_equal(kind("    barrier (my_project/sync.py:12)"), -1);
	/* a name inside a longer identifier is no match; case matters */
	assert_int_equal(kind("#1  0x1 in myncclIbInitWrapper () from libfoo.so"), -1);
	assert_int_equal(kind("#1  0x1 in NCCLIBINIT () from libfoo.so"), -1);
	/* background threads have their own kind */
	assert_int_equal(kind("    ncclProxyService (libnccl.so.2)"), NFK_BACKGROUND);
	/* every row is found by its own name */
	size_t n;
	const struct nccl_frame *rows = kb_nccl_frames(&n);
	assert_true(n > 80);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(kb_nccl_frame(rows[i].name, strlen(rows[i].name)), &rows[i]);
		assert_true(rows[i].kind < NFK_COUNT);
		assert_non_null(rows[i].source);
	}
	for (int k = 1; k < NFK_COUNT; k++) {
		const struct nccl_frame_cause *c = nccl_frame_causes((enum nccl_frame_kind)k);
		assert_non_null(c[0].cause);
		for (; c->cause; c++)
			assert_true(c->w > 0 && c->w <= 0.5);
	}
}

static void test_rule(void **state)
{
	(void)state;
	/* a gdb dump of a process in SHM set-up under the connect loop, the
	 * proxy thread beside it: SHM first */
	static const char *const gdb[] = {
		"Thread 1 (Thread 0x7f3c5e7fe740 (LWP 4121) \"python\"):",
		"#0  0x00007f3c5e8a3e2e in __GI___poll () at ../sysdeps/unix/sysv/linux/poll.c:29",
		"#3  0x00007f3b1c2e0f11 in ncclProxyCallBlocking () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
		"#4  0x00007f3b1c31c2a2 in shmRecvSetup () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
		"#5  0x00007f3b1c30a6c0 in ncclTransportP2pSetup () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
		"Thread 2 (Thread 0x7f3aff5fe640 (LWP 4133) \"python\"):",
		"#1  0x00007f3b1c2e3b2c in ncclProxyService () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
	};
	struct result *r = analyze_lines(gdb, sizeof(gdb) / sizeof(gdb[0]));
	assert_true(r->causes->n > 0);
	assert_string_equal(r->causes->v[0].cause, "shm_too_small");
	assert_true(r->causes->v[0].confidence >= 0.4);
	assert_true(has_finding(r, "LOG_STACK_STAGE"));
	/* the stage's own advice first (the first screen's Next), the catalog's after */
	const struct finding *sf = result_find(r, "LOG_STACK_STAGE");
	assert_true(sf->nfix == 2);
	assert_non_null(strstr(sf->fixes[0].text, "--ipc=host"));
	result_free(r);
	/* only the background threads: no stage, no finding */
	static const char *const bg[] = {
		"#1  0x00007f3b1c2e3b2c in ncclProxyService () from libnccl.so.2",
		"    ncclProxyProgress (libnccl.so.2)",
	};
	r = analyze_lines(bg, 2);
	assert_false(has_finding(r, "LOG_STACK_STAGE"));
	result_free(r);
	/* beside a root failure the stack adds no cause: the WARN decides */
	static const char *const root[] = {
		"node1:4121:4133 [0] NCCL INFO NCCL version 2.19.3+cuda12.3",
		"node1:4121:4133 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9637892 bytes",
		"#4  0x00007f3b1c31c2a2 in ncclIbRegMr () from libnccl.so.2",
	};
	r = analyze_lines(root, 3);
	assert_string_equal(r->causes->v[0].cause, "shm_too_small");
	for (size_t i = 0; i < r->causes->n; i++)
		assert_string_not_equal(r->causes->v[i].cause, "ib_rdma_config");
	result_free(r);
	/* a py-spy dump of a collective in Python alone: honest unknown */
	static const char *const py[] = {
		"Thread 3171 (idle): \"MainThread\"",
		"    barrier (torch/distributed/distributed_c10d.py:3689)",
		"    main (train.py:41)",
	};
	r = analyze_lines(py, 3);
	assert_true(r->causes->unknown);
	assert_true(r->causes->v[0].confidence < 0.25);
	assert_true(has_finding(r, "LOG_STACK_STAGE"));
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
