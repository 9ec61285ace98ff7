/* Async events and completion channels without CQs: the async fd honours
 * O_NONBLOCK (EAGAIN), port events on rxe1 when its netdev (veth1) goes down
 * and up (in the VM, as root), ibv_ack_async_event, channel create/destroy and
 * ibv_get_cq_event on an empty non-blocking channel. Without a device, or
 * without rxe1/veth1, it says so and passes. CQ-bound channel behaviour is in
 * events_cq.c.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Sets a netdev up or down without starting a process (vm-test checks that
 * every process of a case loads the library under test). */
static int link_set(const char *dev, int up)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0), rc = -1;

	if (s < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return rc;
}

static void channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = NULL;
	void *cq_ctx = NULL;
	int rc, fl;

	CHECK(ch, "ibv_create_comp_channel: %d", errno);
	if (!ch)
		return;
	printf("channel: context ok %d fd ok %d refcnt %d\n", ch->context == ctx, ch->fd >= 0,
	       ch->refcnt);
	fl = fcntl(ch->fd, F_GETFL);
	fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	rc = ibv_get_cq_event(ch, &cq, &cq_ctx);
	printf("ibv_get_cq_event(empty, non-blocking) = %d errno %d\n", rc, errno);
	rc = ibv_destroy_comp_channel(ch);
	printf("ibv_destroy_comp_channel = %d\n", rc);
}

static int wait_event(struct ibv_context *ctx, enum ibv_event_type want)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int i;

	for (i = 0; i < 100; i++) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		ibv_ack_async_event(&ev);
		/* GID changes come and go with addresses: only port events count. */
		if (ev.event_type == want) {
			printf("event %s port %d\n", ibv_event_type_str(ev.event_type),
			       ev.element.port_num);
			return 0;
		}
	}
	printf("no %s event\n", ibv_event_type_str(want));
	return -1;
}

static void async(struct ibv_context *ctx, int toggle)
{
	struct ibv_async_event ev;
	int fl = fcntl(ctx->async_fd, F_GETFL), rc;

	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	rc = ibv_get_async_event(ctx, &ev);
	/* Nothing pending right after open (the other rxe may be settling: skip
	 * whatever is there). */
	while (rc == 0) {
		ibv_ack_async_event(&ev);
		rc = ibv_get_async_event(ctx, &ev);
	}
	printf("ibv_get_async_event(empty, non-blocking) = %d errno %d\n", rc, errno);
	if (!toggle)
		return;
	if (link_set("veth1", 0) != 0) {
		printf("cannot set veth1 down\n");
		return;
	}
	wait_event(ctx, IBV_EVENT_PORT_ERR);
	if (link_set("veth1", 1) != 0)
		printf("cannot set veth1 up\n");
	wait_event(ctx, IBV_EVENT_PORT_ACTIVE);
	fcntl(ctx->async_fd, F_SETFL, fl);
}

int main(void)
{
	struct ibv_device **list;
	int n, i;

	ctest_init();
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		printf("no RDMA device: no events\n");
		if (list)
			ibv_free_device_list(list);
		return ctest_finish();
	}
	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx = ibv_open_device(list[i]);
		int toggle = strcmp(name, "rxe1") == 0 && geteuid() == 0 &&
			     access("/sys/class/net/veth1", F_OK) == 0;

		printf("== %s\n", name);
		CHECK(ctx, "open");
		if (!ctx)
			continue;
		channel(ctx);
		async(ctx, toggle);
		CHECK(ibv_close_device(ctx) == 0, "close");
	}
	if (ctest_ours()) {
		struct ibv_async_event ev = { .event_type = IBV_EVENT_CQ_ERR };

		/* Acks of NULL / unknown objects are ignored (rdma-core: crash). */
		ibv_ack_async_event(NULL);
		ibv_ack_async_event(&ev);
		ctest_impl_line("ibv_ack_async_event(NULL), (unknown CQ): ignored");
		int rc;

		errno = 0;
		rc = ibv_get_async_event(NULL, &ev);
		ctest_impl_line("ibv_get_async_event(NULL ctx) = %d errno %d", rc, errno);
		CHECK(rc == -1 && errno == EINVAL, "%d %d", rc, errno);
		rc = ibv_destroy_comp_channel(NULL);
		ctest_impl_line("ibv_destroy_comp_channel(NULL) = %d", rc);
		CHECK(rc == EINVAL, "%d", rc);
	}
	ibv_free_device_list(list);
	return ctest_finish();
}
