/*
 * An MPI job across the two guests (vm/guest/two-hosts.sh, case mpi): a
 * ping-pong between ranks 0 and 1 with every byte checked, at sizes from 1 B
 * to 1 MiB, then an allreduce over every rank whose sum is known, then an
 * alltoall of 64 KiB blocks whose every byte names its sender, its receiver
 * and its offset. Each rank
 * prints the libibverbs.so.1 its /proc/self/maps shows (the proof of the
 * library each host ran on). Exit 0 when every check held on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void maps_proof(int rank)
{
	char line[1024], host[256] = "";
	const char *lib = "none";
	static char path[1024];
	FILE *f = fopen("/proc/self/maps", "r");
	gethostname(host, sizeof(host));
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libibverbs.so.1")) {
			p[strcspn(p, "\n")] = 0;
			snprintf(path, sizeof(path), "%s", p);
			lib = path;
			break;
		}
	}
	if (f)
		fclose(f);
	printf("rank %d: maps: %s\n", rank, lib);
}

int main(int argc, char **argv)
{
	int rank, size, bad = 0, all_bad;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	maps_proof(rank);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);

	size_t max = 1 << 20;
	unsigned char *buf = malloc(max);
	int iters = 0;
	for (size_t n = 1; n <= max; n *= 4) {
		for (int it = 0; it < 10; it++, iters++) {
			if (rank == 0) {
				for (size_t i = 0; i < n; i++)
					buf[i] = (unsigned char)(i * 31 + n + it);
				MPI_Send(buf, (int)n, MPI_BYTE, 1, it, MPI_COMM_WORLD);
				memset(buf, 0, n);
				MPI_Recv(buf, (int)n, MPI_BYTE, 1, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				for (size_t i = 0; i < n; i++)
					if (buf[i] != (unsigned char)(i * 31 + n + it + 1)) {
						printf("rank 0: size %zu iter %d: byte %zu is %u\n", n, it, i, buf[i]);
						bad = 1;
						break;
					}
			} else if (rank == 1) {
				MPI_Recv(buf, (int)n, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				for (size_t i = 0; i < n; i++) {
					if (buf[i] != (unsigned char)(i * 31 + n + it)) {
						printf("rank 1: size %zu iter %d: byte %zu is %u\n", n, it, i, buf[i]);
						bad = 1;
						break;
					}
				}
				for (size_t i = 0; i < n; i++)
					buf[i] = (unsigned char)(i * 31 + n + it + 1);
				MPI_Send(buf, (int)n, MPI_BYTE, 0, it, MPI_COMM_WORLD);
			}
		}
	}
	if (rank == 0)
		printf("ping-pong: %d round trips, 1 B to %zu B, every byte checked: %s\n", iters, max,
		       bad ? "MISMATCH" : "ok");

	/* allreduce: each rank contributes rank+1 in every slot of 4096 longs */
	enum { N = 4096 };
	long *in = malloc(N * sizeof(long)), *out = malloc(N * sizeof(long));
	for (int i = 0; i < N; i++)
		in[i] = (long)(rank + 1) * (i + 1);
	MPI_Allreduce(in, out, N, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	long want_sum = (long)size * (size + 1) / 2;
	for (int i = 0; i < N; i++)
		if (out[i] != want_sum * (i + 1)) {
			printf("rank %d: allreduce slot %d is %ld, not %ld\n", rank, i, out[i], want_sum * (i + 1));
			bad = 1;
			break;
		}
	MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf("allreduce over %d ranks (%d longs): %s\n", size, N, all_bad ? "FAIL" : "ok");
	/* alltoall: the block from rank s to rank r holds byte (s * 31 + r * 7 + i) */
	enum { B = 65536 };
	unsigned char *sb = malloc((size_t)B * size), *rb = calloc((size_t)B * size, 1);
	for (int r = 0; r < size; r++)
		for (int i = 0; i < B; i++)
			sb[(size_t)r * B + i] = (unsigned char)(rank * 31 + r * 7 + i);
	MPI_Alltoall(sb, B, MPI_BYTE, rb, B, MPI_BYTE, MPI_COMM_WORLD);
	int a_bad = 0, all_a_bad = 0;
	for (int s = 0; s < size && !a_bad; s++)
		for (int i = 0; i < B; i++)
			if (rb[(size_t)s * B + i] != (unsigned char)(s * 31 + rank * 7 + i)) {
				printf("rank %d: alltoall block from %d byte %d is %u\n", rank, s, i, rb[(size_t)s * B + i]);
				a_bad = 1;
				break;
			}
	MPI_Allreduce(&a_bad, &all_a_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf("alltoall over %d ranks (%d B blocks): %s\n", size, B, all_a_bad ? "FAIL" : "ok");
	free(sb); free(rb);
	free(buf); free(in); free(out);
	MPI_Finalize();
	return all_bad || all_a_bad;
}
