/* Unit tests of analyze/kernel_analyze: GPU mapping on the recorded sysroot
 * tests/fixtures/sysroot/kernel-p2p (two GPUs under a PCIe switch, a
 * non-GPU device, BARs in `resource`, /proc/driver/nvidia names), the P2P
 * fault signature, AER on a bridge, secondary Xids, aggregation and --since. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/kernel_analyze.h"
#include "analyze/kmsg.h"
#include "collect/collect.h"
#include "util/sysroot.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/input.h"

#include "kread.h"

static struct machine g_mach;
static struct kgpu_map g_map;

static int setup(void **state)
{
	(void)state;
	char root[512];
	snprintf(root, sizeof(root), "%s/sysroot/kernel-p2p", ND_FIXTURES);
	if (sysroot_set(root) < 0)
		return -1;
	machine_init(&g_mach);
	collect_kernel(&g_mach);
	if (g_mach.pci.n == 0)
		return -1;
	kgpu_map_build(&g_map, &g_mach);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kgpu_map_release(&g_map);
	machine_release(&g_mach);
	sysroot_set(NULL);
	return 0;
}

static void on_line(void *ctx, const struct kline *l)
{
	kparser_line(ctx, l);
}

static void parse_sysroot_kmsg(struct kparser *kp)
{
	kparser_init(kp, 1000);
	struct kreader kr;
	kreader_init(&kr, on_line, kp);
	int fd = sr_open("/dev/kmsg", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(kread_fd(&kr, fd), 0);
	close(fd);
}

static const struct finding *find(const struct result *r, const char *id, int nth)
{
	for (size_t i = 0; i < r->nfindings; i++)
		if (strcmp(r->findings[i]->id, id) == 0 && nth-- == 0)
			return r->findings[i];
	return NULL;
}

static void test_map(void **state)
{
	(void)state;
	assert_int_equal(g_map.n, 2);
	assert_string_equal(g_map.gpus[0].bdf, "0000:03:00.0");
	assert_int_equal(g_map.gpus[0].index, 0);
	assert_string_equal(g_map.gpus[0].name, "NVIDIA H200");
	assert_string_equal(g_map.gpus[1].uuid, "GPU-bbbbbbbb-0000-1111-2222-333333333333");
	/* Xid form: no function digit */
	assert_ptr_equal(kgpu_find(&g_map, "0000:04:00.0", true), &g_map.gpus[1]);
	assert_ptr_equal(kgpu_find(&g_map, "0000:04:00.0", false), &g_map.gpus[1]);
	assert_null(kgpu_find(&g_map, "0000:04:00.1", false));
	assert_null(kgpu_find(&g_map, "0000:06:00.0", false));
	assert_null(kgpu_find(&g_map, "", false));
	/* BARs: 0x384_0000_0000.. is GPU 1's BAR1, 0xd0xxxxxx GPU 0's BAR0 */
	assert_ptr_equal(kgpu_by_bar(&g_map, 0x38400001000ULL, &g_map.gpus[0]), &g_map.gpus[1]);
	assert_ptr_equal(kgpu_by_bar(&g_map, 0xd0001000ULL, NULL), &g_map.gpus[0]);
	assert_null(kgpu_by_bar(&g_map, 0xd0001000ULL, &g_map.gpus[0]));
	assert_null(kgpu_by_bar(&g_map, 0x7f000000ULL, NULL));
	/* bridges: 02:01.0 is above GPU 1 only, 01:00.0 above both */
	const struct kgpu *below[4];
	assert_int_equal(kgpu_below(&g_map, "0000:02:01.0", below, 4), 1);
	assert_ptr_equal(below[0], &g_map.gpus[1]);
	assert_int_equal(kgpu_below(&g_map, "0000:01:00.0", below, 4), 2);
	assert_int_equal(kgpu_below(&g_map, "0000:00:02.0", below, 4), 0);
}

static void test_analyze_sysroot(void **state)
{
	(void)state;
	struct kparser kp;
	parse_sysroot_kmsg(&kp);
	struct result *r = result_new("kernel");
	const char *names[] = { "/dev/kmsg" };
	struct kernel_analyze_opts o = { .src_names = names, .nsrc = 1 };
	size_t kept = kernel_analyze(r, &kp, &g_map, &o);
	assert_int_equal(kept, 8);

	const struct finding *p2p = find(r, "P2P_IOMMU_FAULT", 0);
	assert_non_null(p2p);
	assert_int_equal(p2p->sev, SEV_ERROR);
	assert_string_equal(p2p->cause, "p2p_pcie_acs_iommu");
	assert_non_null(strstr(p2p->title, "GPU 0 (0000:03:00.0"));
	assert_non_null(strstr(p2p->title, "-> GPU 1 (0000:04:00.0"));
	assert_non_null(strstr(p2p->title, "2 times"));
	assert_null(find(r, "P2P_IOMMU_FAULT", 1));
	/* GPU 1's own fault is outside any BAR: a plain GPU IOMMU fault */
	const struct finding *gf = find(r, "GPU_IOMMU_FAULT", 0);
	assert_non_null(gf);
	assert_non_null(strstr(gf->title, "GPU 1"));
	assert_null(find(r, "GPU_IOMMU_FAULT", 1)); /* the NVMe fault is not a GPU's */

	const struct finding *x79 = find(r, "XID_79", 0);
	assert_non_null(x79);
	assert_int_equal(x79->sev, SEV_ERROR);
	assert_non_null(strstr(x79->title, "GPU 1 (0000:04:00.0, NVIDIA H200)"));
	assert_null(find(r, "GPU_FALLEN_OFF_BUS", 0)); /* joined into XID_79 */
	assert_true(x79->nev >= 3);
	assert_string_equal(x79->ev[0].file, "/dev/kmsg");
	assert_int_equal(x79->ev[0].line, 17);

	const struct finding *x45 = find(r, "XID_45", 0);
	assert_non_null(x45);
	assert_int_equal(x45->sev, SEV_INFO); /* secondary to Xid 79 */
	assert_non_null(strstr(x45->title, "secondary"));

	const struct finding *aer = find(r, "PCIE_AER_CORRECTABLE", 0);
	assert_non_null(aer);
	assert_non_null(strstr(aer->title, "above GPU 1"));
	assert_non_null(strstr(aer->title, "RxErr"));

	assert_non_null(find(r, "IOMMU_DEFAULT_TRANSLATED", 0));
	assert_int_equal(result_exit_code(r), 2);
	result_free(r);
	kparser_release(&kp);
}

static void test_since(void **state)
{
	(void)state;
	struct kparser kp;
	parse_sysroot_kmsg(&kp);
	struct result *r = result_new("kernel");
	/* the last 20 s before boot+4230.5: only the Xid 45 (and boot facts) */
	struct kernel_analyze_opts o = { .since = 20, .have_ref_boot = true, .ref_boot = 4230.5 };
	assert_int_equal(kernel_analyze(r, &kp, &g_map, &o), 1);
	assert_non_null(find(r, "XID_45", 0));
	assert_null(find(r, "XID_79", 0));
	assert_null(find(r, "P2P_IOMMU_FAULT", 0));
	assert_non_null(find(r, "IOMMU_DEFAULT_TRANSLATED", 0));
	/* still secondary: the Xid 79 30 s earlier happened, outside the window or not */
	assert_int_equal(find(r, "XID_45", 0)->sev, SEV_INFO);
	result_free(r);
	kparser_release(&kp);
}

static void test_no_pci(void **state)
{
	(void)state;
	struct kgpu_map empty;
	kgpu_map_build(&empty, NULL);
	struct kparser kp;
	parse_sysroot_kmsg(&kp);
	struct result *r = result_new("kernel");
	struct kernel_analyze_opts o = { 0 };
	kernel_analyze(r, &kp, &empty, &o);
	/* without PCI facts faults cannot be tied to GPUs, Xids still can be reported */
	assert_null(find(r, "P2P_IOMMU_FAULT", 0));
	assert_non_null(find(r, "XID_79", 0));
	assert_non_null(strstr(find(r, "XID_79", 0)->title, "device 0000:04:00.0"));
	result_free(r);
	kparser_release(&kp);
	kgpu_map_release(&empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_analyze_sysroot),
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_no_pci),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
