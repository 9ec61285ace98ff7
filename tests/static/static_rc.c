/* A C program linked with libibverbs.a (make pkg-test, vm/guest/pkg-tests.sh):
 * proves no libibverbs shared object is mapped, lists the devices, then sends
 * one message between two connected RC QPs of the first device (rxe0 in the
 * VM, loopback; the pair comes from c-tests/dp.h) and checks what arrived.
 * Build: cc -I c-tests tests/static/static_rc.c ... (see vm/run-pkg-tests.sh). */
#include "dp.h"

#define FAIL(...) do { fprintf(stderr, "static_rc: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static int maps_have_libibverbs(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		FAIL("cannot read /proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "libibverbs")) {
			fprintf(stderr, "static_rc: mapped: %s", line);
			found = 1;
		}
	fclose(f);
	return found;
}

int main(void)
{
	static const char msg[] = "hello from a statically linked libibverbs";
	struct ibv_device **list;
	struct ibv_wc wc;
	struct dp d;
	int n, i;

	if (maps_have_libibverbs())
		FAIL("a libibverbs shared object is mapped: not a static link");
	printf("static_rc: no libibverbs shared object mapped\n");

	list = ibv_get_device_list(&n);
	if (!list || n == 0)
		FAIL("no device (errno %d)", errno);
	printf("static_rc: %d device(s):", n);
	for (i = 0; i < n; i++)
		printf(" %s", ibv_get_device_name(list[i]));
	printf("\n");
	ibv_free_device_list(list);

	if (dp_setup(&d, IBV_QPT_RC, 7) != 0 || ctest_failures)
		FAIL("setting up the connected RC pair failed");
	memcpy(d.buf[0], msg, sizeof(msg));
	struct ibv_sge rs = { .addr = (uintptr_t)d.buf[1], .length = 512, .lkey = d.mr[1]->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 }, *bad_r;
	struct ibv_sge ss = { .addr = (uintptr_t)d.buf[0], .length = sizeof(msg), .lkey = d.mr[0]->lkey };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bad_s;

	if (ibv_post_recv(d.qp[1], &rwr, &bad_r) || ibv_post_send(d.qp[0], &swr, &bad_s))
		FAIL("posting failed (errno %d)", errno);
	for (i = 0; i < 2; i++) {
		if (!dp_poll1(d.cq[i], &wc))
			FAIL("no completion on side %d", i);
		if (wc.status != IBV_WC_SUCCESS)
			FAIL("side %d: %s", i, ibv_wc_status_str(wc.status));
	}
	if (wc.byte_len != sizeof(msg) || memcmp(d.buf[1], msg, sizeof(msg)))
		FAIL("received %u bytes that differ from what was sent", wc.byte_len);
	printf("static_rc: RC send on %s: \"%s\" arrived\n", ibv_get_device_name(d.ctx->device), d.buf[1]);

	dp_teardown(&d);
	if (ctest_failures)
		FAIL("teardown failed");
	if (maps_have_libibverbs())
		FAIL("a libibverbs shared object got mapped while running");
	printf("static_rc: OK\n");
	return 0;
}
