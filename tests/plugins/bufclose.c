/* Buffers of fake65.c's (a 65 plugin's alloc_buf) and ibv_close_device:
 * `bufclose before` frees them before the close, `bufclose after` closes the
 * context with them (and an MR on one) still allocated, then frees them.
 * discovery.sh runs both under valgrind: the late free must neither crash
 * nor leave more memory in use at exit than the early one. */
#include "open_fake.h"

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_fake("fake65_0", (void *)ibv_alloc_buf);
	int after = argc > 1 && !strcmp(argv[1], "after");

	if (!ctx)
		return 1;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_buf *b0 = NULL, *b1 = NULL;
	char *p0 = pd ? ibv_alloc_buf(pd, 4096, &b0) : NULL;
	char *p1 = pd ? ibv_alloc_buf(pd, 8192, &b1) : NULL;
	printf("alloc_buf: %s\n", p0 && p1 ? "ok" : strerror(errno));
	if (!p0 || !p1)
		return 1;
	struct ibv_mr *mr = ibv_reg_buf_mr(pd, b0, p0, 4096, IBV_ACCESS_LOCAL_WRITE);
	printf("reg_buf_mr: %s\n", mr ? "ok" : strerror(errno));
	if (!after) {
		printf("dereg_mr: %d\n", ibv_dereg_mr(mr));
		ibv_free_buf(b0);
		ibv_free_buf(b1);
		printf("dealloc_pd: %d\n", ibv_dealloc_pd(pd));
	}
	printf("close: %d\n", ibv_close_device(ctx));
	if (after) {
		errno = 0;
		int fd = ibv_export_buf_dmabuf_fd(b1);
		printf("export_buf_dmabuf_fd after close: %d %s\n", fd, strerror(errno));
		errno = 0;
		ibv_free_buf(b0);
		printf("free_buf after close: %s\n", strerror(errno));
		errno = 0;
		ibv_free_buf(b1);
		printf("free_buf after close: %s\n", strerror(errno));
	}
	return 0;
}
