/* Unit tests of report/prom.c on results built in memory: label values
 * with a quote, a backslash and a newline escaped as the text format wants;
 * GB/s, microseconds and GT/s turned into base units; an unknown (null)
 * value is no sample; a GPU known by its BDF keeps NVML's index, UUID and
 * dcgm-exporter's bus id form; the same id found twice is one series with
 * the count; a command's own verdict word is in the state set; kernel
 * events summed per GPU and kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kb/findings.h"
#include "model/result.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct prom_opts opts = { .node = "node-1", .exit_code = 2, .duration_s = 1.5, .now = 1700000000.25 };

/* r with these JSON members (as a command's r->extra holds them) */
static char *render_with(struct result *r, const char *extra)
{
	if (extra) {
		json_error_t e;
		json_t *x = json_loads(extra, 0, &e);
		if (!x)
			fail_msg("bad JSON in the test: %s", e.text);
		json_decref(r->extra);
		r->extra = x;
	}
	char *s = report_prom(r, &opts);
	result_free(r);
	return s;
}

static void has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("no '%s' in:\n%s", line, text);
}

static void escapes(void **state)
{
	(void)state;
	struct result *r = result_new("sys");
	struct section *s = result_section(r, "nccl_libraries", "NCCL libraries");
	static const struct column cols[] = { { "path", "PATH", 0 }, { "version", "VERSION", 0 }, { "loaded_by", "BY", 0 } };
	struct table *t = section_table(s, "libraries", NULL, cols, 3);
	size_t row = table_add_row(t);
	table_set(t, row, "path", val_str("/opt/a\"b\\c\nd/libnccl.so.2"));
	table_set(t, row, "version", val_str("2.21.5"));
	table_set(t, row, "loaded_by", val_str("ld.so default"));
	char *p = render_with(r, NULL);
	has(p, "nccl_doctor_nccl_library_info{command=\"sys\",Hostname=\"node-1\",path=\"/opt/a\\\"b\\\\c\\nd/libnccl.so.2\","
	       "version=\"2.21.5\",loaded_by=\"ld.so default\"} 1\n");
	/* the NCCL of the versions info: the library the dynamic linker gives */
	has(p, "nccl_doctor_versions_info{command=\"sys\",Hostname=\"node-1\",driver=\"\",cuda=\"\",nccl=\"2.21.5\"} 1\n");
	has(p, "nccl_doctor_exit_code{command=\"sys\",Hostname=\"node-1\"} 2\n");
	has(p, "nccl_doctor_run_duration_seconds{command=\"sys\",Hostname=\"node-1\"} 1.5\n");
	has(p, "nccl_doctor_last_run_timestamp_seconds{command=\"sys\",Hostname=\"node-1\"} 1700000000.25\n");
	/* HELP, TYPE once each, before the family's first sample */
	const char *h = strstr(p, "# HELP nccl_doctor_nccl_library_info "), *ty = strstr(p, "# TYPE nccl_doctor_nccl_library_info gauge\n");
	assert_non_null(h);
	assert_true(h < ty && ty < strstr(p, "nccl_doctor_nccl_library_info{"));
	assert_null(strstr(h + 1, "# HELP nccl_doctor_nccl_library_info "));
	free(p);
}

static void units_and_unknowns(void **state)
{
	(void)state;
	char *p = render_with(result_new("p2p"),
			     "{\"gpus\": [{\"index\": 0, \"bdf\": \"0000:1b:00.0\", \"uuid\": \"GPU-a\", \"name\": \"H200\"},"
			     "            {\"index\": 1, \"bdf\": \"0000:c3:00.0\", \"uuid\": \"GPU-b\", \"name\": \"H200\"}],"
			     " \"pairs\": [{\"src\": 0, \"dst\": 1, \"link\": \"NV18\", \"status\": \"CORRUPT(4096)\","
			     "             \"ce_gbs\": 345.5, \"ce_nop2p_gbs\": null, \"latency_us\": 2.5, \"expected_gbs\": 360}]}");
	const char *pair = "{command=\"p2p\",Hostname=\"node-1\",gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00000000:1B:00.0\",peer_gpu=\"1\"";
	char want[512];
	snprintf(want, sizeof(want), "nccl_doctor_p2p_pair_state%s,link=\"NV18\"} 4\n", pair);
	has(p, want);
	snprintf(want, sizeof(want),
		 "nccl_doctor_p2p_pair_bandwidth_bytes_per_second%s,engine=\"copy\",p2p=\"on\",direction=\"unidirectional\"} 345500000000\n",
		 pair);
	has(p, want);
	snprintf(want, sizeof(want), "nccl_doctor_p2p_pair_latency_seconds%s,p2p=\"on\"} 2.5e-06\n", pair);
	has(p, want);
	snprintf(want, sizeof(want), "nccl_doctor_p2p_pair_expected_bandwidth_bytes_per_second%s} 360000000000\n", pair);
	has(p, want);
	assert_null(strstr(p, "p2p=\"off\",direction")); /* null: no sample */
	assert_null(strstr(p, "NaN"));
	has(p, "nccl_doctor_gpu_info{command=\"p2p\",Hostname=\"node-1\",gpu=\"1\",UUID=\"GPU-b\",pci_bus_id=\"00000000:C3:00.0\",modelName=\"H200\"} 1\n");
	free(p);

	p = render_with(result_new("bench"),
			"{\"facts\": {\"bench\": {\"op\": \"all_gather\", \"nranks\": 8}},"
			" \"bench\": {\"avg_busbw\": 1.25, \"rows\": [{\"size\": 1048576, \"type\": \"float\", \"redop\": \"none\", \"root\": -1,"
			"  \"out_of_place\": {\"time_us\": 10, \"algbw\": 2, \"busbw\": 1.75, \"wrong\": 0}, \"in_place\": null}]}}");
	const char *row = "{command=\"bench\",Hostname=\"node-1\",op=\"all_gather\",size_bytes=\"1048576\",type=\"float\",redop=\"none\","
			  "root=\"-1\",placement=\"out_of_place\"}";
	snprintf(want, sizeof(want), "nccl_doctor_bench_bus_bandwidth_bytes_per_second%s 1750000000\n", row);
	has(p, want);
	snprintf(want, sizeof(want), "nccl_doctor_bench_time_seconds%s 1e-05\n", row);
	has(p, want);
	has(p, "nccl_doctor_bench_average_bus_bandwidth_bytes_per_second{command=\"bench\",Hostname=\"node-1\",op=\"all_gather\"} 1250000000\n");
	assert_null(strstr(p, "placement=\"in_place\""));
	free(p);
}

/* A GPU sys knows only by its BDF and its own count carries NVML's index
 * and UUID; one sys's index names no other GPU's. */
static void gpus_by_bdf(void **state)
{
	(void)state;
	struct result *r = result_new("check");
	struct section *s = result_section(r, "gpus", "GPUs");
	static const struct column cols[] = { { "index", "#", 0 }, { "bdf", "BDF", 0 }, { "link_width", "W", 0 } };
	struct table *t = section_table(s, "gpus", NULL, cols, 3);
	size_t row = table_add_row(t);
	table_set(t, row, "index", val_int(0));
	table_set(t, row, "bdf", val_str("0000:c3:00.0"));
	table_set(t, row, "link_width", val_int(8));
	char *p = render_with(r, "{\"gpus\": [{\"index\": 0, \"bdf\": \"0000:1b:00.0\", \"uuid\": \"GPU-a\"},"
				 "            {\"index\": 1, \"bdf\": \"0000:c3:00.0\", \"uuid\": \"GPU-b\"}]}");
	has(p, "nccl_doctor_pcie_link_width{command=\"check\",Hostname=\"node-1\",gpu=\"1\",UUID=\"GPU-b\",pci_bus_id=\"00000000:C3:00.0\"} 8\n");
	has(p, "nccl_doctor_gpus{command=\"check\",Hostname=\"node-1\"} 2\n");
	free(p);
}

static void findings_and_verdicts(void **state)
{
	(void)state;
	struct result *r = result_new("sys");
	finding_add(r, FID_P2P_HANG, SEV_ERROR, "GPU 0 - GPU 1");
	finding_add(r, FID_P2P_HANG, SEV_ERROR, "GPU 2 - GPU 3");
	r->verdict = "FIX FOUND"; /* fix's own word */
	char *p = render_with(r, "{\"verdict\": \"FIX FOUND\"}");
	has(p, "nccl_doctor_finding{command=\"sys\",Hostname=\"node-1\",id=\"P2P_HANG\",severity=\"error\",cause=\"p2p_pcie_acs_iommu\"} 2\n");
	has(p, "nccl_doctor_findings{command=\"sys\",Hostname=\"node-1\",severity=\"error\"} 2\n");
	has(p, "nccl_doctor_verdict_state{command=\"sys\",Hostname=\"node-1\",verdict=\"FIX FOUND\"} 1\n");
	has(p, "nccl_doctor_verdict_state{command=\"sys\",Hostname=\"node-1\",verdict=\"BROKEN\"} 0\n");
	assert_null(strstr(p, "nccl_doctor_verdict{"));
	free(p);
}

/* kernel's events: summed per GPU and kind; those of no GPU under gpu="" */
static void kernel_events(void **state)
{
	(void)state;
	struct result *r = result_new("kernel");
	char *p = render_with(r, "{\"facts\": {\"kernel\": {\"gpus\": [{\"index\": 1, \"bdf\": \"0000:04:00.0\", \"uuid\": \"GPU-k\"}],"
				 " \"events\": [{\"gpu\": 1, \"kind\": \"xid\", \"count\": 2}, {\"gpu\": null, \"kind\": \"aer\", \"count\": 1},"
				 "             {\"gpu\": 1, \"kind\": \"xid\", \"count\": 3}, {\"gpu\": 1, \"kind\": \"off_bus\", \"count\": 1}]}}}");
	has(p, "nccl_doctor_kernel_events{command=\"kernel\",Hostname=\"node-1\",gpu=\"1\",UUID=\"GPU-k\",pci_bus_id=\"00000000:04:00.0\",kind=\"xid\"} 5\n");
	has(p, "nccl_doctor_kernel_events{command=\"kernel\",Hostname=\"node-1\",gpu=\"\",UUID=\"\",pci_bus_id=\"\",kind=\"aer\"} 1\n");
	has(p, "kind=\"off_bus\"} 1\n");
	const char *first = strstr(p, "kind=\"xid\"");
	assert_null(strstr(first + 1, "kind=\"xid\""));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escapes),
		cmocka_unit_test(units_and_unknowns),
		cmocka_unit_test(gpus_by_bdf),
		cmocka_unit_test(findings_and_verdicts),
		cmocka_unit_test(kernel_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
