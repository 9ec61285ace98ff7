/* What fork protection the library serving a C test must give on this
 * kernel (c-tests/fork.c, c-tests/pd_mr_fork.c).
 *
 * Where the kernel copies pinned pages at fork (RDMA netlink's
 * RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, Linux 5.13 and later), rdma-core 52 and
 * later make ibv_fork_init return 0 and do nothing: no MADV_DONTFORK marks,
 * no EINVAL after a registration, RDMAV_FORK_SAFE and IBV_FORK_SAFE
 * ignored. rdma-core 44 (Debian 12) still marks the pages. Ours follows 52.
 * Elsewhere every release keeps 44's rules. */
#ifndef CTEST_FORK_H
#define CTEST_FORK_H

#include "common.h"
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel's answer, asked here over netlink and not through the library
 * under test: 1 if it copies pinned pages at fork, 0 if it does not or RDMA
 * netlink does not answer (as libibverbs takes it). */
static int fork_kernel_copies(void)
{
	static int known = -1;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(0),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET),
		.nlmsg_flags = NLM_F_REQUEST,
		.nlmsg_seq = 1,
	};
	union {
		struct nlmsghdr h;
		char b[8192];
	} buf;
	int fd, n, cof = 0;

	if (known >= 0)
		return known;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd >= 0 && sendto(fd, &req, req.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) ==
			       (ssize_t)req.nlmsg_len &&
	    (n = recv(fd, &buf, sizeof(buf), 0)) > 0) {
		for (struct nlmsghdr *h = &buf.h; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			int len;

			if (h->nlmsg_type != req.nlmsg_type)
				continue;
			len = NLMSG_PAYLOAD(h, 0);
			/* attributes right after the header: nldev has no family header */
			for (struct nlattr *a = NLMSG_DATA(h); len >= (int)sizeof(*a) &&
			     a->nla_len >= sizeof(*a) && a->nla_len <= len;
			     len -= NLA_ALIGN(a->nla_len),
			     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
				if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK &&
				    a->nla_len > NLA_HDRLEN)
					cof = *((uint8_t *)a + NLA_HDRLEN) != 0;
		}
	}
	if (fd >= 0)
		close(fd);
	known = cof;
	return cof;
}

/* Whether the library must skip ibv_fork_init here: ours and rdma-core 52
 * and later on a kernel that copies pinned pages. Fails a check when the
 * system library's release cannot be told. */
static int fork_init_skipped(void)
{
	static int known = -1;
	int rel;

	if (known < 0) {
		rel = ctest_release();
		CHECK(ctest_ours() || rel > 0, "no rdma-core release in the library's file name");
		known = fork_kernel_copies() && (ctest_ours() || rel >= 52);
	}
	return known;
}

/* Prints what the two functions above found (once per test). */
static void fork_print_rules(void)
{
	int rel = ctest_release();

	printf("kernel copies pinned pages at fork: %s\n", fork_kernel_copies() ? "yes" : "no");
	ctest_impl_line("fork rules of rdma-core %d%s: ibv_fork_init %s", ctest_ours() ? 52 : rel,
			ctest_ours() ? " and later (ours)" : "",
			fork_init_skipped() ? "does nothing" : "tracks registrations");
}

/* A line whose content depends on the library's release: tagged (left out of
 * the comparison between libraries) where releases differ, i.e. where the
 * kernel copies pinned pages; each is checked against fork_init_skipped(). */
static void fork_line(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (fork_kernel_copies())
		ctest_impl_line("%s", line);
	else
		printf("%s\n", line);
}

#endif
