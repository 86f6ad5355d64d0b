/* Runs a harness without libFuzzer: every file named on the command line,
 * or found in a directory named there, is passed to LLVMFuzzerTestOneInput
 * once ("--optional DIR": a directory that may not exist yet). ctest runs
 * it on the seed corpus (fuzz/corpus/TARGET) and on the inputs that once
 * crashed (tests/fixtures/fuzz-regress/TARGET), in the plain and the
 * sanitizer build. Exit 0 when every input ran, 1 when one could not be
 * read; a crash is the harness's own (ASan, UBSan, abort). */
#include "fuzz.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t k;
	while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			if (cap >= (64u << 20))
				break; /* libFuzzer's inputs are far smaller */
			cap *= 2;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				buf = NULL;
			} else {
				buf = nb;
			}
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	/* an exact-size copy, so ASan sees reads past the end of the input */
	uint8_t *in = malloc(n ? n : 1);
	memcpy(in, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: cannot open '%s'\n", dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			names = realloc(names, alloc * sizeof(*names));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(path) < 0)
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (strcmp(argv[i], "--optional") == 0 && i + 1 < argc) {
			if (stat(argv[++i], &st) < 0)
				continue;
		}
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: no such input '%s'\n", argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count) < 0)
				rc = 1;
		} else if (run_file(argv[i]) < 0) {
			rc = 1;
		} else {
			count++;
		}
	}
	printf("%s: %d inputs ran\n", argv[0], count);
	return rc;
}
