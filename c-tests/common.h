/* Shared helper of the host-side C tests (c-tests/run.sh).
 *
 * Environment set by run.sh:
 *   CTEST_EXPECT_LIB  real path of the libibverbs.so.1 this run must use
 *   CTEST_IMPL        "ours" or "system": which behaviour to expect. Lines that
 *                     may differ between the two are printed with the prefix
 *                     "[ours] " / "[system] " and left out of the comparison.
 *
 * Every test calls ctest_init() first and returns ctest_finish() from main().
 * Results go to stdout (deterministic: no addresses, no timings); failed
 * expectations go to stderr as "FAIL: ..." and make the exit status 1.
 */
#ifndef CTEST_COMMON_H
#define CTEST_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ctest_failures;
static int ctest_checks;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		ctest_checks++;                                                \
		if (!(cond)) {                                                 \
			ctest_failures++;                                      \
			fprintf(stderr, "FAIL: %s:%d: %s: ", __FILE__,         \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

static inline int ctest_ours(void)
{
	const char *v = getenv("CTEST_IMPL");
	return v && strcmp(v, "ours") == 0;
}

/* Whether the data path is our Rust provider's: not under IBV_PROVIDERS=plugin,
 * where rdma-core 44's own C plugin (Debian's, with 44's behaviour) serves it. */
static inline int ctest_ours_dp(void)
{
	const char *p = getenv("IBV_PROVIDERS");
	return ctest_ours() && !(p && strcmp(p, "plugin") == 0);
}

/* Prints a line that is implementation-specific ("[ours] ..." or "[system] ..."). */
static inline void ctest_impl_line(const char *fmt, ...)
{
	va_list ap;

	printf("[%s] ", ctest_ours() ? "ours" : "system");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Checks that the libibverbs serving this process is CTEST_EXPECT_LIB: the object
 * that defines the ibv_get_device_list the program calls, and the only
 * libibverbs.so* mapped into the process. Exits 3 if not. */
static inline void ctest_init(void)
{
	const char *want = getenv("CTEST_EXPECT_LIB");
	char wantr[PATH_MAX], got[PATH_MAX], line[PATH_MAX + 256];
	struct ibv_device **(*volatile fn)(int *) = ibv_get_device_list;
	Dl_info info;
	FILE *maps;
	int bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!want || !realpath(want, wantr)) {
		fprintf(stderr, "FAIL: CTEST_EXPECT_LIB unset or not found (%s)\n",
			want ? want : "unset");
		exit(3);
	}
	if (!dladdr((void *)fn, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, got)) {
		fprintf(stderr, "FAIL: dladdr(ibv_get_device_list) failed\n");
		exit(3);
	}
	if (strcmp(got, wantr) != 0) {
		fprintf(stderr, "FAIL: ibv_get_device_list comes from %s, expected %s\n",
			got, wantr);
		exit(3);
	}
	maps = fopen("/proc/self/maps", "r");
	if (!maps) {
		perror("FAIL: /proc/self/maps");
		exit(3);
	}
	while (fgets(line, sizeof(line), maps)) {
		char *path = strchr(line, '/');
		char *base;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		base = strrchr(path, '/') + 1;
		if (strncmp(base, "libibverbs.so", 13) == 0 && strcmp(path, wantr) != 0) {
			fprintf(stderr, "FAIL: another libibverbs is mapped: %s (expected only %s)\n",
				path, wantr);
			bad = 1;
		}
	}
	fclose(maps);
	if (bad)
		exit(3);
}

/* The rdma-core release of the library serving this process (44 for
 * libibverbs.so.1.14.44.0): the third number after ".so." in the real name of
 * the file defining ibv_get_device_list; 0 when the name has none (ours). */
static inline int ctest_release(void)
{
	struct ibv_device **(*volatile fn)(int *) = ibv_get_device_list;
	char path[PATH_MAX];
	const char *v;
	Dl_info info;
	int major, minor, release;

	if (!dladdr((void *)fn, &info) || !info.dli_fname || !realpath(info.dli_fname, path))
		return 0;
	v = strstr(path, "libibverbs.so.");
	if (!v || sscanf(v + 14, "%d.%d.%d", &major, &minor, &release) != 3)
		return 0;
	return release;
}

static int ctest_find_rxe_plugin(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (!strstr(info->dlpi_name, "/librxe-rdmav"))
		return 0;
	snprintf(data, PATH_MAX, "%s", info->dlpi_name);
	return 1;
}

/* The rdma-core release of the C rxe plugin loaded into this process (0 if
 * none): a plugin carries only its ABI version in its name, so this reads the
 * release from the libibverbs.so.1.ABI.RELEASE.PATCH that its release
 * installed beside the plugin directory (44 on Debian 12, 56 in trixie's root). */
static inline int ctest_rxe_plugin_release(void)
{
	char path[PATH_MAX] = "";
	struct dirent *e;
	char *slash;
	int release = 0, abi, r, patch;
	DIR *dir;

	dl_iterate_phdr(ctest_find_rxe_plugin, path);
	for (int up = 0; up < 2; up++) {
		slash = strrchr(path, '/');
		if (!slash)
			return 0;
		*slash = '\0';
	}
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((e = readdir(dir)))
		if (sscanf(e->d_name, "libibverbs.so.1.%d.%d.%d", &abi, &r, &patch) == 3 &&
		    r > release)
			release = r;
	closedir(dir);
	return release;
}

static inline int ctest_finish(void)
{
	fflush(stdout);
	if (ctest_failures)
		fprintf(stderr, "%d of %d checks failed\n", ctest_failures, ctest_checks);
	return ctest_failures ? 1 : 0;
}

#endif
