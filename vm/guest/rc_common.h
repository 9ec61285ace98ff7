/*
 * What the two-host RC programs (rc_linkdown.c, rc_peerkill.c, rc_bench.c)
 * share: hand-off files, the checked message stream with its one-completion-
 * per-WR bookkeeping, and a QP pair connected over a TCP exchange.
 * Include after defining PROG (the program's name, for die).
 * Everything is static inline, so a program pays only for what it uses.
 */
#ifndef RC_COMMON_H
#define RC_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define DEPTH 32
#define CUT_AFTER 200
#define MAXWR (1 << 22)

#define die(...) do { fprintf(stderr, PROG ": " __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } while (0)

/* bytes per message of the checked stream (set before the first post) */
static int msg = 64;

static inline double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* DIR/NAME: the file through which the guest's script is asked to act */
static inline void touch(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die("cannot create %s: %s", p, strerror(errno));
	close(fd);
}

/* message seq: its number, then bytes that depend on it and their place */
static inline void fill(char *m, uint64_t seq)
{
	for (int i = 0; i < msg; i++)
		m[i] = (char)(seq * 7 + i);
	memcpy(m, &seq, 8);
}

static inline int msg_ok(const char *m, uint64_t seq)
{
	uint64_t got;
	memcpy(&got, m, 8);
	if (got != seq)
		return 0;
	for (int i = 8; i < msg; i++)
		if (m[i] != (char)(seq * 7 + i))
			return 0;
	return 1;
}

/* the sender's account of a stream: one completion per posted WR */
struct stream {
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;		/* DEPTH slots of msg bytes */
	unsigned char *seen;
	enum ibv_wc_status *st;
	uint64_t posted, completed, ok, first_err, nflush, nretry;
	int post_failed, bad;
	double t_err, t_last;
};

static inline void stream_init(struct stream *s, struct ibv_qp *qp, struct ibv_mr *mr, char *buf)
{
	memset(s, 0, sizeof(*s));
	s->qp = qp;
	s->mr = mr;
	s->buf = buf;
	s->seen = calloc(MAXWR, 1);
	s->st = calloc(MAXWR, sizeof(*s->st));
	if (!s->seen || !s->st)
		die("out of memory");
	s->first_err = UINT64_MAX;
}

static inline void stream_free(struct stream *s)
{
	free(s->seen);
	free(s->st);
}

/* keeps DEPTH signaled SENDs in flight; a failed post before the cut is
 * fatal, after it posting stops (no completion is due for that WR) */
static inline void stream_post(struct stream *s, int cut)
{
	while (!s->post_failed && s->posted - s->completed < DEPTH && s->posted < MAXWR) {
		char *m = s->buf + (s->posted % DEPTH) * msg;
		fill(m, s->posted);
		struct ibv_sge g = { (uintptr_t)m, msg, s->mr->lkey };
		struct ibv_send_wr w = { .wr_id = s->posted, .sg_list = &g, .num_sge = 1,
					 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bw;
		int r = ibv_post_send(s->qp, &w, &bw);
		if (r && !cut)
			die("ibv_post_send (wr %llu) before the cut: %s", (unsigned long long)s->posted, strerror(r));
		if (r) {
			printf("ibv_post_send (wr %llu) after the cut: %s; posting stopped\n",
			       (unsigned long long)s->posted, strerror(r));
			s->post_failed = 1;
			return;
		}
		s->posted++;
	}
}

/* polls up to 16 completions into the account; returns how many */
static inline int stream_reap(struct stream *s, struct ibv_cq *cq)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(cq, 16, wc);
	if (n < 0)
		die("ibv_poll_cq failed");
	for (int i = 0; i < n; i++) {
		uint64_t w = wc[i].wr_id;
		if (w >= s->posted || s->seen[w]++) {
			printf("FAIL: completion for wr %llu (posted %llu) unknown or twice\n",
			       (unsigned long long)w, (unsigned long long)s->posted);
			s->bad = 1;
			continue;
		}
		s->st[w] = wc[i].status;
		s->completed++;
		s->t_last = now();
		if (wc[i].status == IBV_WC_SUCCESS)
			s->ok++;
		else if (s->first_err == UINT64_MAX) {
			s->first_err = w;
			s->t_err = now();
		}
	}
	return n;
}

/* once every posted WR completed: successes for a prefix, then errors only,
 * each retry exceeded or flushed (rem_op_first: the first may be a remote
 * operation error); then the CQ must stay empty */
static inline void stream_judge(struct stream *s, struct ibv_cq *cq, int rem_op_first)
{
	usleep(500000);
	struct ibv_wc extra;
	int n = ibv_poll_cq(cq, 1, &extra);
	if (n != 0) {
		printf("FAIL: %d completion(s) after every posted WR had one (wr %llu)\n", n,
		       (unsigned long long)extra.wr_id);
		s->bad = 1;
	}
	for (uint64_t w = 0; w < s->posted; w++) {
		if (s->seen[w] != 1) {
			printf("FAIL: wr %llu completed %d times\n", (unsigned long long)w, s->seen[w]);
			s->bad = 1;
		} else if (w < s->first_err && s->st[w] != IBV_WC_SUCCESS) {
			s->bad = 1;
		} else if (w > s->first_err && s->st[w] == IBV_WC_SUCCESS) {
			printf("FAIL: wr %llu succeeded after wr %llu failed\n", (unsigned long long)w,
			       (unsigned long long)s->first_err);
			s->bad = 1;
		} else if (w >= s->first_err) {
			if (s->st[w] == IBV_WC_WR_FLUSH_ERR)
				s->nflush++;
			else if (s->st[w] == IBV_WC_RETRY_EXC_ERR)
				s->nretry++;
			else if (s->st[w] == IBV_WC_REM_OP_ERR && w == s->first_err && rem_op_first)
				;
			else {
				printf("FAIL: wr %llu: %s\n", (unsigned long long)w, ibv_wc_status_str(s->st[w]));
				s->bad = 1;
			}
		}
	}
}

static inline enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi))
		die("ibv_query_qp: %s", strerror(errno));
	return qa.qp_state;
}

/* ---- a QP pair connected over a TCP exchange of QP number, PSN and GID */

static inline void xfer(int fd, void *buf, size_t n, int out)
{
	char *p = buf;
	while (n) {
		ssize_t r = out ? write(fd, p, n) : read(fd, p, n);
		if (r <= 0)
			die("TCP %s failed: %s", out ? "write" : "read", r ? strerror(errno) : "peer closed");
		p += r;
		n -= r;
	}
}

/* connects to host:port, retrying for a minute (the peer may not listen yet) */
static inline int tcp_connect(const char *host, int port)
{
	struct addrinfo *ai, hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	char ps[16];
	int fd = -1;
	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &ai))
		die("cannot resolve %s", host);
	for (int i = 0; i < 300; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
		usleep(200000);
	}
	freeaddrinfo(ai);
	if (fd < 0)
		die("cannot connect to %s:%d", host, port);
	return fd;
}

static inline int tcp_accept(int port)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1))
		die("cannot listen on port %d: %s", port, strerror(errno));
	int fd = accept(ls, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	close(ls);
	return fd;
}

struct peer { uint32_t qpn, psn; uint8_t gid[16]; uint32_t count; };

/* the device side: context, PD, GID index and the RC retry count */
struct dev { struct ibv_context *ctx; struct ibv_pd *pd; int gidx, retry; };

struct conn { struct ibv_cq *cq; struct ibv_qp *qp; struct ibv_mr *mr; char *buf; uint32_t psn; };

static inline void dev_open(struct dev *d)
{
	int num;
	struct ibv_device **l = ibv_get_device_list(&num);
	if (!l || !num)
		die("no RDMA device");
	d->ctx = ibv_open_device(l[0]);
	if (!d->ctx)
		die("ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(l);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("ibv_alloc_pd: %s", strerror(errno));
}

static inline void dev_close(struct dev *d)
{
	ibv_dealloc_pd(d->pd);
	ibv_close_device(d->ctx);
}

/* an RC QP in INIT on its own CQ, with nbuf registered slots of msg bytes */
static inline void conn_create(struct dev *d, struct conn *c, int nbuf, int rq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = rq, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	c->cq = ibv_create_cq(d->ctx, DEPTH + rq + 16, NULL, NULL, 0);
	if (!c->cq)
		die("ibv_create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = c->cq;
	c->qp = ibv_create_qp(d->pd, &ia);
	if (!c->qp)
		die("ibv_create_qp: %s", strerror(errno));
	c->buf = calloc(nbuf, msg);
	c->mr = ibv_reg_mr(d->pd, c->buf, (size_t)nbuf * msg, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		die("ibv_reg_mr: %s", strerror(errno));
	c->psn = lrand48() & 0xffffff;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify to INIT: %s", strerror(errno));
}

static inline void conn_me(struct dev *d, struct conn *c, struct peer *me)
{
	union ibv_gid g;
	if (ibv_query_gid(d->ctx, 1, d->gidx, &g))
		die("ibv_query_gid %d: %s", d->gidx, strerror(errno));
	me->qpn = c->qp->qp_num;
	me->psn = c->psn;
	memcpy(me->gid, g.raw, 16);
}

/* INIT -> RTR -> RTS towards p, path MTU 1024, timeout 14 (67 ms) */
static inline void conn_connect(struct dev *d, struct conn *c, const struct peer *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = p->qpn,
		.rq_psn = p->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1, .grh = { .sgid_index = d->gidx, .hop_limit = 64 } },
	};
	memcpy(a.ah_attr.grh.dgid.raw, p->gid, 16);
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify to RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = d->retry;
	a.rnr_retry = 7;
	a.sq_psn = c->psn;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify to RTS: %s", strerror(errno));
}

static inline void conn_destroy(struct conn *c)
{
	if (ibv_destroy_qp(c->qp) || ibv_dereg_mr(c->mr) || ibv_destroy_cq(c->cq))
		die("destroy: %s", strerror(errno));
	free(c->buf);
}

static inline void post_recv(struct conn *c, int slot)
{
	struct ibv_sge g = { (uintptr_t)(c->buf + slot * msg), msg, c->mr->lkey };
	struct ibv_recv_wr w = { .wr_id = slot, .sg_list = &g, .num_sge = 1 }, *bad;
	if (ibv_post_recv(c->qp, &w, &bad))
		die("ibv_post_recv: %s", strerror(errno));
}

#endif
