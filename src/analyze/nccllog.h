/* NCCL / PyTorch / vLLM log reader: parses lines of every NCCL format from
 * 2.4 to 2.31 (with launcher prefixes anywhere before the NCCL header) and
 * builds a model per process (host, pid): version, ranks and communicators,
 * the furthest stage of the init timeline, transports, environment
 * overrides, warnings and errors with their back-trace chains, and the
 * signature matches (kb/nccl_signatures.h) with their file:line.
 *
 * Memory is bounded whatever the input size: lines are fed one at a time,
 * and every table has a cap (processes, comms, evidence per signature);
 * what did not fit is counted. nccllog_analyze() (analyze/logs/analyze.c)
 * turns the model into findings, ranked causes and the per-rank JSON.
 *
 * The files, all under analyze/logs/ (docs/logs.md, "Where the analysis
 * lives"):
 *   read/     the reader: text into the model, it names no cause. reader.c
 *             (feeding, processes, events; the two stages of a line),
 *             parse.c (a line, the header cache), headerless.c (NCCL lines
 *             without their header), match.c (signatures), warns.c (NCCL's
 *             own WARN table), info.c (INFO lines into the model),
 *             topomat.c (topo -m matrices and wrapped interface lists in
 *             the text), threads.c (worker threads); private header
 *             read/read.h, which nothing outside read/ includes.
 *   inputs/   the other formats, detected by content behind one sniffer
 *             table (inputs.h, inputs.c) that the reader consults for
 *             every line: flight_recorder.c and pickle.c (PyTorch
 *             flight-recorder dumps, JSON and pickle), inspector.c (NCCL
 *             Inspector dumps, ncclras reports); they fill lg->fr and
 *             lg->insp (flight_recorder.h, inspector.h) and include
 *             nothing of read/.
 *   text.h, text.c  the small text helpers both share.
 *   analyze.c, rules/, score.c, helpers.c  the analysis (header ana.h):
 *             rules/table.c is the one rule table, by phase; rules/<domain>.c
 *             one file per cause-class family (flight_recorder.c and
 *             inspector.c read the dumps of inputs/); score.c alone adds
 *             to, caps or drops a cause. */
#ifndef ND_ANALYZE_NCCLLOG_H
#define ND_ANALYZE_NCCLLOG_H
#include "kb/nccl_signatures.h"
#include "model/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- one line ------------------------------------------------------- */

/* NL_ATTN: NCCL 2.32's level for important non-fatal events (fallbacks,
 * plugin init failures), read like INFO */
enum nl_level { NL_NONE, NL_INFO, NL_WARN, NL_TRACE, NL_CALL, NL_ABORT, NL_ATTN };

struct nl_line {
	enum nl_level level;   /* NL_NONE: not an NCCL debug line */
	const char *host;      /* NCCL header fields; host NULL when none */
	size_t hostlen;
	long pid, tid;         /* -1 when absent */
	int dev;               /* [cudaDev], -1 when absent */
	const char *src;       /* WARN: source file ("init.cc"), else NULL */
	size_t srclen;
	long srcline;
	const char *func;      /* 2.30+ WARN "(function)", else NULL */
	size_t funclen;
	const char *msg;       /* the message (after "NCCL INFO "), or the whole text */
	size_t msglen;
	long long ts;          /* NCCL's own "[YYYY-MM-DD HH:MM:SS]" as epoch seconds, 0 if none */
	long ppid;             /* launcher prefix "(VllmWorkerProcess pid=N)" etc., -1 if none */
	int prank;             /* launcher prefix "[rankN]:", "[1,N]<stdout>:", "rank=N", -1 if none */
};

/* Parses a NUL-terminated line in place (no copies: pointers point into s).
 * Returns 1 for an NCCL debug line, 0 for any other text. Never fails. */
int nccllog_parse_line(const char *s, size_t len, struct nl_line *out);
/* The rank a launcher prefix of the line names ("[rank1]: ...",
 * "[1,1]<stderr>:"), -1 none. */
int nccllog_line_rank(const char *s, size_t len);

/* Cleans a raw line in place before parsing: NUL bytes become spaces, ANSI
 * escape sequences are removed. Returns the new length; *had_nul and
 * *had_ansi say what was changed. */
size_t nccllog_clean_line(char *s, size_t len, bool *had_nul, bool *had_ansi);

/* ---- the model ------------------------------------------------------ */

#define NL_MAX_PROCS 4096
#define NL_MAX_COMMS 16       /* per process */
#define NL_MAX_TRANSPORTS 48  /* distinct (peer, transport) per process */
#define NL_MAX_ENV 32         /* per process */
#define NL_MAX_FILES 4096
#define NL_MAX_EVIDENCE 6     /* stored lines per signature (count goes on) */
#define NL_TEXT_MAX 300       /* bytes kept of an evidence line */
#define NL_MAX_SIGS 384

struct nl_comm {
	char ptr[24];            /* "0x2f6b74b0" */
	char commid[24];         /* "0x9e46..." (2.16+), "" when not printed */
	int rank, nranks;        /* -1 when unknown */
	int cudadev, nvmldev;
	char busid[24];
	int stage;               /* furthest stage of the timeline, T3.. */
	int file;                /* where it was last seen */
	uint64_t stage_line;     /* line of the furthest stage */
	int nnodes, localranks;
	bool complete, destroyed, aborted;
	bool conn_in_init;       /* transports connected before Init COMPLETE */
	double init_total;       /* "Init timings ... total X", -1 when absent */
	int chunksize;           /* "P2P Chunksize set to", 0 when absent */
};

struct nl_transport {
	int peer;                /* peer rank */
	char kind[32];           /* "P2P/CUMEM/read", "SHM/direct/direct", "NET/Socket/0" */
	uint32_t count;          /* channels */
};

struct nl_env {
	char name[48];
	char value[48];
	int file;
	uint64_t line;
};

struct nl_proc {
	char host[64];
	long pid;
	int file;                /* first file seen in */
	int dev;                 /* [cudaDev] of the header */
	char version[32];        /* "2.28.9+cuda13.0" */
	int version_file;
	uint64_t version_line;
	int cuda_driver;         /* cudaDriverVersion, 0 unknown */
	char bootstrap_if[64];   /* "eth0:192.0.2.2<0>" */
	char bootstrap_if2[64];  /* an earlier, different one of the same (host, pid): two containers */
	char net[32];            /* "Socket", "IB" */
	char net_plugin[48];     /* NET/Plugin: the plugin loaded, "internal", "" not seen */
	char socket_if[64];      /* NET/Socket : Using [0]eth0:10.0.0.1<0>: the first, "eth0:10.0.0.1<0>" */
	char socket_virt[64];    /* the first of that list nl_virt_if_name() names, "" none */
	int socket_virt_n;       /* how many entries of that list are such interfaces */
	int socket_n;            /* how many entries the list has */
	int socket_virt_file;
	uint64_t socket_virt_line;
	char ib_hcas[64];        /* NET/IB : Using [0]mlx5_0:1/IB ..: "[0]mlx5_0:1/IB", "none" */
	int stage0;              /* furthest stage before any comm (T0..T2), -1 none */
	struct nl_comm comms[NL_MAX_COMMS];
	int ncomms;
	uint32_t comms_dropped;
	struct nl_transport tr[NL_MAX_TRANSPORTS];
	int ntr;
	int via_file;            /* the first "via" line */
	uint64_t via_line;
	char via_text[120];
	struct nl_env env[NL_MAX_ENV];
	int nenv;
	uint32_t nwarn;          /* WARN lines */
	uint32_t nwarn_peer;     /* of them, the lost connection to a peer (LOG_PEER_CONNECTION_LOST, LOG_NCCL_REMOTE_ERROR) */
	uint64_t nlines;         /* NCCL lines */
	int last_file;           /* last NCCL line */
	uint64_t last_line;
	char last_text[160];
	const char *last_src;    /* private: the text last_text gets at the next flush (nl_flush_text) */
	size_t last_srclen;
	bool last_dirty;
	int stage_file;          /* the line that reached the furthest stage */
	uint64_t stage_line;
	char stage_text[160];
	int known_file;          /* the last INFO line of the init timeline the reader models */
	uint64_t known_line;
	int last_warn_event;     /* index of the event of its last WARN, -1 */
	uint64_t last_warn_line;
	int last_warn_file;
	int prank;               /* rank from launcher prefixes, -1 */
	uint64_t sighits[(NL_MAX_SIGS + 63) / 64]; /* bitmap of signature indices matched */
};

/* One stored signature match (the first NL_MAX_EVIDENCE per signature). */
struct nl_event {
	int sig;                 /* index into kb_nccl_signatures() */
	int proc;                /* -1 when the line names no process */
	int prank;               /* rank from a launcher prefix ("[rank3]:"), -1 */
	int file;
	uint64_t line;
	uint64_t seq;            /* order of reading */
	long long ts;
	char text[NL_TEXT_MAX];
	char chain[200];         /* back-trace "init.cc:126 -> 5, init.cc:160 -> 5" */
	int code;                /* ncclResult_t of the chain, 0 none */
	char src[64];            /* a WARN's source file ("transport/p2p.cc"), "" */
	int gen;                 /* 1 + its row of kb_nccl_warns() (W00 only), 0 none */
};

/* A PyTorch watchdog timeout: which collective each rank was waiting in. */
#define NL_MAX_WATCHDOG 256
struct nl_watchdog {
	int rank;                /* "[Rank N]", -1 unknown */
	long long seq;           /* SeqNum */
	char optype[24];         /* OpType */
	long long timeout_ms;
	int file;
	uint64_t line;
};

struct nl_file {
	char *name;
	uint64_t lines, bytes;
	uint64_t nccl_lines;
	uint64_t truncated, nul_lines, ansi_lines;
	bool no_newline;
	int nprocs;              /* processes whose first line is in this file */
	int only_proc;           /* the one process of this file, -1 none, -2 several */
	uint64_t last_line_no;   /* the last line that is not NCCL's */
	uint64_t last_nccl_line; /* the last NCCL line */
	uint64_t last_error_line; /* PyTorch's "Last error:" alone on its line: NCCL's last WARN follows */
	char last_text[160];
	const char *last_src;    /* private: as nl_proc's */
	size_t last_srclen;
	bool last_dirty;
};

/* Facts of text lines (logs/read/topomat.c): the GPU pairs of the `nvidia-smi
 * topo -m` matrices found in the text (the header row names the columns,
 * each GPU row gives its cells), and virtual interfaces of a wrapped
 * NET/Socket list. */
#define NL_TOPOMAT_COLS 32
struct nl_topomat {
	int hdr_file;            /* file of the last header row, -1 (or 0 before any) */
	bool have_hdr;
	int ncols;
	bool gpucol[NL_TOPOMAT_COLS]; /* column j is GPU<j'> (not a NIC) */
	int first_file;          /* the first GPU row counted */
	uint64_t first_line;
	char first_text[96];
	int pairs_pcie, pairs_nv; /* ordered GPU pairs by path: PIX..SYS, NV# */
	int pairs_cls[8];        /* by enum link_class (model/topo.h) */
	/* NET/Socket's interface list wrapped one entry a line: Docker
	 * bridges and veth pairs ("[1]br-05ab815fa14e:172.19.0.1<0>") */
	int nvirt_if;
	int virt_file;
	uint64_t virt_line;
	char virt_text[96];
};

/* Facts about the machine the logs come from, when the caller knows them
 * (watch runs the job here; `check --log` and `logs --sysroot` read them
 * from the machine model; `logs` alone reads a paste from anywhere and
 * leaves them unknown). Each int is -1 unknown, 0 no, 1 yes unless said
 * otherwise; each *_why is the fact as a report shows it, beginning with
 * where it was read (origin), "" when unknown. The analysis weighs its
 * causes with them in one place (rules/host.c through score.c). */
struct nl_host {
	bool known;              /* false: none of the below was gathered */
	char origin[96];         /* "this machine", "the machine of sysroot DIR" */
	int nvlink;              /* some GPU has an active NVLink (NVML) */
	int p2p_blocked;         /* ACS redirect on a bridge between GPUs, or their DMA translated by the IOMMU */
	char p2p_why[400];       /* what showed it, or what showed it is not ("" unknown) */
	int xid;                 /* an Xid or PCIe/IOMMU event in the kernel log read; -1 it was not read */
	char hw_why[240];        /* what rules out a hardware fault of a PCIe-only box (host_hint_set_xid) */
	int ib_devices;          /* RDMA devices in /sys/class/infiniband, -1 unknown */
	char ib_why[200];
	int shm_small;           /* /dev/shm missing or under sys's limit (SHM_TOO_SMALL, SHM_NOT_MOUNTED) */
	char shm_why[200];
	char nccl_net[32];       /* NCCL_NET of the machine's environment or nccl.conf, "" unset or unknown */
	char net_why[200];
};

/* nccl-tests result tables in the text (logs/read/teststab.c): the columns
 * of the last table header (kb/benchmarks.md: size count type redop root,
 * then time algbw busbw #wrong out of place and in place), the collective
 * its "# Collective test starting:" line named, and the rows whose #wrong
 * is not 0: data that arrived wrong. */
#define NL_TESTS_MAX_ROWS 8
#define NL_TESTS_MAX_COLS 24
struct nl_tests_row {
	int file;
	uint64_t line;
	char op[40];             /* "all_reduce_perf", "" when its line was not seen */
	long long size;          /* bytes */
	char type[16], redop[16];
	long long wrong[2];      /* out of place, in place; -1 N/A */
	char text[160];
};
struct nl_tests {
	int file;                /* file of the last header */
	int ncols;               /* its columns (0: no table with #wrong being read) */
	int col_size, col_type, col_redop, col_wrong[2];
	char op[40];             /* the last "# Collective test starting: X" of that file */
	int op_file;
	long nrows;              /* rows read under a header */
	long nwrong;             /* of them with #wrong > 0 */
	int nkept;
	struct nl_tests_row rows[NL_TESTS_MAX_ROWS]; /* the first nkept of those */
};

struct nccllog {
	struct nl_host host;     /* set by the caller before nccllog_analyze; zero: unknown */
	struct nl_file *files;
	int nfiles;
	size_t afiles;
	struct nl_proc *procs;   /* grows up to NL_MAX_PROCS */
	int nprocs;
	size_t aprocs;
	uint32_t procs_dropped;  /* lines of processes over the cap */
	struct nl_event *ev;
	size_t nev, aev;
	uint32_t sigcount[NL_MAX_SIGS];
	uint8_t sigstored[NL_MAX_SIGS];
	uint64_t seq;
	uint64_t orphan_chain;   /* back-trace lines without a WARN before them */
	uint64_t py_errors;      /* Python tracebacks and exception lines no signature took (nl_py_error_line) */
	struct {                 /* the first of them that returned an error through bootstrap.cc; line 0: none */
		int file;
		uint64_t line;
		char text[96];
	} orphan_boot;
	struct {                 /* the first exception line of a program error (nl_py_program_error); line 0: none */
		int file;
		uint64_t line;
		char text[NL_TEXT_MAX];
	} py_prog;
	struct nl_watchdog wd[NL_MAX_WATCHDOG];
	int nwd;
	/* private: the compiled signature matcher, the process index */
	void *matcher;
	void *procindex;
	void *fr;                /* flight-recorder dumps (logs/inputs/flight_recorder.h), NULL */
	void *insp;              /* Inspector dumps, ncclras counts (logs/inputs/inspector.h), NULL */
	void *fwerr;             /* framework-error lines (logs/inputs/framework.h), NULL */
	void *frames;            /* stack frames of NCCL and the layers above (logs/inputs/frames.h), NULL */
	struct nl_topomat topomat; /* topo -m matrices, wrapped interface lists in the text (logs/read/topomat.c) */
	struct nl_tests tests;   /* nccl-tests result tables in the text (logs/read/teststab.c) */
};

/* Whether the interface name at s[0..n) is one other hosts cannot reach
 * or that should not carry NCCL's traffic: a Docker, Podman, libvirt or LXC
 * bridge, a veth pair, a Kubernetes CNI or overlay device (cni, flannel,
 * cali, vxlan, tunl), a VPN overlay (tailscale, ZeroTier zt, WireGuard wg),
 * a VMware or VirtualBox host network, or a wireless interface (wl...).
 * NCCL's default search leaves out only "^docker,lo" (N:misc/socket.cc
 * ncclFindInterfaces), so all of these can join the real NIC in its list
 * or be the one it picks (logs/read/topomat.c, analyze/logs/rules/). */
bool nl_virt_if_name(const char *s, size_t n);
/* Of those, the ones other hosts do reach (wireless, Tailscale, ZeroTier,
 * WireGuard): unsuited across hosts, harmless for one host's bootstrap. */
bool nl_if_name_reachable(const char *s, size_t n);

void nccllog_init(struct nccllog *lg);
void nccllog_release(struct nccllog *lg);
/* Empties lg for the next set of inputs, as nccllog_init would, but keeps
 * its compiled matcher and the memory of its tables (a caller that reads
 * many logs one after another: the fuzz harness, watch). */
void nccllog_reset(struct nccllog *lg);
/* Starts a new input; returns its index (use it in nccllog_feed). */
int nccllog_begin_file(struct nccllog *lg, const char *name);
/* Feeds one raw line (as the line reader returns it; may be changed in
 * place). lineno counts from 1. */
void nccllog_feed(struct nccllog *lg, int file, char *line, size_t len, uint64_t lineno);
/* The same for a line the caller knows holds no NUL and no ESC byte (the
 * line reader's may_ctrl is false): nccllog_clean_line() is skipped, the
 * line is only read, and it need not be NUL-terminated: line[len] may be
 * its newline (a span of a mapped file, linereader_next_span). */
void nccllog_feed_plain(struct nccllog *lg, int file, const char *line, size_t len, uint64_t lineno);
/* Records what the reader saw of a file (truncated lines, final newline). */
void nccllog_end_file(struct nccllog *lg, int file, uint64_t lines, uint64_t bytes,
		      uint64_t truncated, bool no_newline);

/* What a reader saw of a file, for nccllog_end_file. */
struct nl_read_totals {
	uint64_t lines, bytes, truncated;
	bool no_newline;
};
/* Where the threaded reader gets the bytes of a file: up to n bytes at
 * offset at (bytes, 0 at the end, a negative errno), from any thread; the
 * caller's (input_pread of util/input.h reads an fd with pread()). */
typedef long (*nl_readat_fn)(void *src, void *buf, size_t n, uint64_t at);
/* Reads a regular file (readat over src, opened and read by the caller)
 * from offset off to its end into the model as
 * input file (logs/read/threads.c): the file is cut into blocks of block bytes
 * (0: the default, 256 KiB) at line starts; threads - 1 worker threads
 * read blocks through readat and run the stateless stage of each line on
 * them, the calling thread feeds their records to the model in line order,
 * so the model is the one nccllog_feed would build with the same line
 * reader (max: longest line kept). Memory: a ring of threads + 3 blocks
 * of at most 8192 records (a block of more lines is fed line by line by
 * the calling thread).
 * threads >= 2. Returns 0 or a negative errno (a read error, or
 * -EAGAIN when a thread could not be started: nothing was fed then). */
int nccllog_read_parallel(struct nccllog *lg, int file, nl_readat_fn readat, void *src, uint64_t off, size_t max, int threads, size_t block,
			  struct nl_read_totals *tot);

/* Copies text for a report: control bytes and invalid UTF-8 become '?'
 * (logs/text.c). */
void nl_copy_clean(char *dst, size_t dstsz, const char *s, size_t n);

/* Stage of a process: its last communicator's, else its pre-comm stage. */
int nl_proc_stage(const struct nl_proc *p);
/* The communicator that speaks for a process (largest nranks, then last). */
const struct nl_comm *nl_proc_main_comm(const struct nl_proc *p);
/* The rank of a process: its main communicator's, else its launcher
 * prefix's ("[rank3]:"), -1 unknown. */
int nl_proc_rank(const struct nl_proc *p);

/* A PyTorch flight-recorder dump in Python's pickle format (buf[0..n), the
 * whole file) as one more input named name (logs/inputs/flight_recorder.c):
 * 0; -EPROTONOSUPPORT when it is no pickle; -EBADMSG (why says what) when
 * it is one this reader does not take (convert it to JSON) or no
 * flight-recorder dump; -E2BIG over the input cap. */
int nccllog_add_pickle(struct nccllog *lg, const char *name, const unsigned char *buf, size_t n, char *why, size_t whysz);

/* ---- analysis (analyze/logs/analyze.c) -------------------------------- */

/* Fills r with sections, findings, and its typed causes and ranks
 * (model/runs.h: result_causes, result_ranks). */
void nccllog_analyze(const struct nccllog *lg, struct result *r);

#endif
