/* Completion channels with CQs: the channel's refcnt counts the CQs using it,
 * destroying it while one does is EBUSY; a completion event names its CQ and
 * cq_context; ibv_ack_cq_events lets ibv_destroy_cq finish. Needs the CQ and
 * QP verbs; without a device it says so and passes.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *got = NULL;
	void *got_ctx = NULL;
	int n, rc;

	ctest_init();
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		printf("no RDMA device: no CQ events\n");
		if (list)
			ibv_free_device_list(list);
		return ctest_finish();
	}
	ctx = ibv_open_device(list[0]);
	CHECK(ctx, "open");
	ch = ctx ? ibv_create_comp_channel(ctx) : NULL;
	CHECK(ch, "channel");
	if (!ch)
		return ctest_finish();
	cq = ibv_create_cq(ctx, 16, (void *)0x1234, ch, 0);
	printf("ibv_create_cq(channel) = %s\n", cq ? "cq" : "NULL");
	if (cq) {
		printf("refcnt %d, cq->channel ok %d\n", ch->refcnt, cq->channel == ch);
		rc = ibv_destroy_comp_channel(ch);
		printf("ibv_destroy_comp_channel(in use) = %d\n", rc);
		rc = ibv_req_notify_cq(cq, 0);
		printf("ibv_req_notify_cq = %d\n", rc);
		fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
		errno = 0;
		rc = ibv_get_cq_event(ch, &got, &got_ctx);
		printf("ibv_get_cq_event(no completion) = %d errno %d\n", rc, errno);
		ibv_ack_cq_events(cq, 0);
		rc = ibv_destroy_cq(cq);
		printf("ibv_destroy_cq = %d, refcnt %d\n", rc, ch->refcnt);
	}
	rc = ibv_destroy_comp_channel(ch);
	printf("ibv_destroy_comp_channel = %d\n", rc);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return ctest_finish();
}
