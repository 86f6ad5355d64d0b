/* Counters of the costly reads of one run, for tests: how often the PCI
 * tree was read and how many workers of each kind started. main prints them
 * on stderr at exit when NCCL_DOCTOR_DEBUG_COUNTS=1 (the tests' switch; see
 * tests/cli/t170-collect-once.sh). Counting prints nothing. */
#ifndef ND_UTIL_COUNTERS_H
#define ND_UTIL_COUNTERS_H

enum nd_counter {
	ND_COUNT_PCI_SCAN,      /* probe/pci.c: pci_scan */
	ND_COUNT_WORKER_NVML,   /* run/worker.c: an nvml-topo worker started */
	ND_COUNT_WORKER_CUDA,   /* a cuda-info worker started */
	ND_COUNT_N
};

void nd_count(enum nd_counter c);
long nd_count_get(enum nd_counter c);

#endif
