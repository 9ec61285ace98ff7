/* Bad input to every exported verb: one table line per case, each
 * case run in a forked child (alarm() against hangs), so that a crash is
 * survivable and shows in the output.
 *
 * The bad objects (column "obj" rows expand to one case per variant):
 *   NULL       a NULL object pointer
 *   foreign    a zeroed struct the library never made (its context field set
 *              to the live context, so that verbs.h's inlines reach the library)
 *   destroyed  an object after its destroy verb
 *   closed     an object of a context closed since (ibv_close_device)
 *   forged     a memcpy of a live object's struct into other memory
 * and out-of-range values (enums, flags, ports, lengths, attr_mask and
 * comp_mask bits, opcodes, num_sge) on live objects.
 *
 * Every case names what our library must return, in the libibverbs convention
 * of its verb: "NULL EINVAL" (NULL + errno), "-1 EINVAL" (-1 + errno), "EINVAL"
 * (a positive errno), "0"/"ok" (success), "void" (returned), "wc N" (the
 * status of an error completion). Debian's result is either the same (the
 * line is printed untagged and run.sh/tests.sh diff it with Debian's run), a
 * fixed other outcome, or undefined ("UB": Debian uses freed, foreign or
 * forged memory, or dereferences NULL in the caller's own inline code), then
 * printed tagged. A case where Debian crashes or hangs and we return an error
 * is printed as a win. The QP, SRQ, MR, MW, AH and data-path rows are in
 * c-tests/badinput_qp.c (the same harness, c-tests/badinput.h), the rdma-core
 * 64 verbs in c-tests/v64/badinput64.c. Cases that need a device are skipped (one line) when
 * there is none (on the host, `make c-test`); in the VM they run on rxe0.
 */

#include "badinput.h"

#define CASES(X, OBJ)                                                                                   \
	/* device list and devices (no device needed) */                                               \
	X(dl_free_null, NODEV, "ibv_free_device_list(NULL)", "void", "SIGSEGV", VOID(ibv_free_device_list(NULL))) \
	OBJ(devname, NODEV, "ibv_get_device_name", (1 << V_NULL) | (1 << V_FOREIGN), "NULL EINVAL", "UB", "NULL EINVAL", devname(DEVICE(v))) \
	OBJ(devguid, NODEV, "ibv_get_device_guid", (1 << V_NULL) | (1 << V_FOREIGN), "0", "SIGSEGV", "0", POS(ibv_get_device_guid(DEVICE(v)))) \
	OBJ(devindex, NODEV, "ibv_get_device_index", (1 << V_NULL) | (1 << V_FOREIGN), "-1 errno 0", "SIGSEGV", "-1 errno 0", NEG(ibv_get_device_index(DEVICE(v)))) \
	OBJ(open, NODEV, "ibv_open_device", (1 << V_NULL) | (1 << V_FOREIGN), "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_open_device(DEVICE(v)))) \
	OBJ(devname_d, NEEDDEV, "ibv_get_device_name", (1 << V_FORGED), "", "", "NULL EINVAL", devname(DEVICE(v))) \
	OBJ(open_d, NEEDDEV, "ibv_open_device", (1 << V_FORGED), "", "", "NULL EINVAL", PTR(ibv_open_device(DEVICE(v)))) \
	X(import_dev_m1, NODEV, "ibv_import_device(-1)", "NULL EINVAL", "=", PTR(ibv_import_device(-1))) \
	X(import_dev_null, NODEV, "ibv_import_device(/dev/null)", "NULL ENODEV", "=", PTR(ibv_import_device(open("/dev/null", O_RDWR)))) \
	X(copy_qp_attr, NODEV, "ibv_copy_qp_attr_from_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_qp_attr_from_kern(NULL, NULL))) \
	X(copy_ah_attr, NODEV, "ibv_copy_ah_attr_from_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_ah_attr_from_kern(NULL, NULL))) \
	X(copy_path_from, NODEV, "ibv_copy_path_rec_from_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_path_rec_from_kern(NULL, NULL))) \
	X(copy_path_to, NODEV, "ibv_copy_path_rec_to_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_path_rec_to_kern(NULL, NULL))) \
	X(ack_async_foreign, NEEDDEV, "ibv_ack_async_event(QP event, foreign QP)", "void", "UB", async_ack()) \
	X(ack_async_null, NODEV, "ibv_ack_async_event(NULL)", "void", "SIGSEGV", VOID(ibv_ack_async_event(NULL))) \
	X(unimport_dm, NODEV, "ibv_unimport_dm(NULL)", "void", "SIGSEGV", VOID(ibv_unimport_dm(NULL))) \
	X(eth_l2, NODEV, "ibv_resolve_eth_l2_from_gid(NULL)", "-1 EINVAL", "SIGSEGV", eth_l2(NULL)) \
	X(sysfs_missing, NODEV, "ibv_read_sysfs_file(missing)", "-1 ENOENT", "=", NEG(ibv_read_sysfs_file("/nonexistent", "x", (char[16]){ 0 }, 16))) \
	/* Debian formats the path with a NULL %s (undefined in C; glibc prints "(null)") */ \
	X(sysfs_null, NODEV, "ibv_read_sysfs_file(NULL dir)", "-1 EINVAL", "UB", NEG(ibv_read_sysfs_file(NULL, "x", (char[16]){ 0 }, 16))) \
	X(dontfork_null, NODEV, "ibv_dontfork_range(NULL, 0)", "0", "=", POS(ibv_dontfork_range(NULL, 0))) \
	X(dofork_null, NODEV, "ibv_dofork_range(NULL, 0)", "0", "=", POS(ibv_dofork_range(NULL, 0))) \
	/* contexts */                                                                                 \
	OBJ(close, NODEV, "ibv_close_device", (1 << V_NULL) | (1 << V_FOREIGN), "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_close_device(CTX(v)))) \
	OBJ(close_d, NEEDDEV, "ibv_close_device", (1 << V_DESTROYED) | (1 << V_FORGED), "", "", "EINVAL", POS(ibv_close_device(CTX(v)))) \
	OBJ(qdev, NODEV, "ibv_query_device", (1 << V_NULL) | (1 << V_FOREIGN), "EINVAL", "SIGSEGV", "EINVAL", query_device(CTX(v))) \
	OBJ(qdev_d, NEEDDEV, "ibv_query_device", (1 << V_DESTROYED) | (1 << V_FORGED), "", "", "EINVAL", query_device(CTX(v))) \
	OBJ(qport, NEEDDEV, "ibv_query_port", NOCLOSED, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", query_port(CTX(v), 1)) \
	OBJ(qgid, NEEDDEV, "ibv_query_gid", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", query_gid(CTX(v), 1, 0)) \
	OBJ(qpkey, NEEDDEV, "ibv_query_pkey", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", query_pkey(CTX(v), 1, 0)) \
	OBJ(pkeyidx, NEEDDEV, "ibv_get_pkey_index", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", NEG(ibv_get_pkey_index(CTX(v), 1, 0xffff))) \
	OBJ(qgidex, NEEDDEV, "ibv_query_gid_ex", NOCLOSED, "EINVAL", "SIGSEGV", "EINVAL", query_gid_ex(CTX(v), 1, 0, 0)) \
	OBJ(qgidtab, NEEDDEV, "ibv_query_gid_table", NOCLOSED, "-EINVAL", "SIGSEGV", "-EINVAL", query_gid_table(CTX(v), 64, 0)) \
	OBJ(allocpd, NEEDDEV, "ibv_alloc_pd", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_alloc_pd(CTX(v)))) \
	OBJ(createcq, NEEDDEV, "ibv_create_cq", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", cq_create(CTX(v), 4, NULL, 0)) \
	OBJ(createch, NEEDDEV, "ibv_create_comp_channel", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_create_comp_channel(CTX(v)))) \
	OBJ(asyncev, NEEDDEV, "ibv_get_async_event", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", async_event(v)) \
	OBJ(importpd, NEEDDEV, "ibv_import_pd", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_import_pd(CTX(v), 1))) \
	/* without IBV_WC_GRH neither library reads the context: any one, even NULL, gives 0 */ \
	OBJ(initah, NEEDDEV, "ibv_init_ah_from_wc", NOCLOSED, "0", "=", "0", init_from_wc(CTX(v), 1, 0)) \
	/* protection domains */                                                                       \
	OBJ(deallocpd, NEEDDEV, "ibv_dealloc_pd", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_dealloc_pd(PD(v)))) \
	OBJ(regmr, NEEDDEV, "ibv_reg_mr", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", reg_mr(PD(v), buf_of(&fx_main), 4096, IBV_ACCESS_LOCAL_WRITE)) \
	OBJ(regmriova, NEEDDEV, "ibv_reg_mr_iova", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_reg_mr_iova(PD(v), buf_of(&fx_main), 4096, 0x1000, 0))) \
	OBJ(regdmabuf, NEEDDEV, "ibv_reg_dmabuf_mr", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_reg_dmabuf_mr(PD(v), 0, 4096, 0, -1, 0))) \
	OBJ(createqp, NEEDDEV, "ibv_create_qp", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", qp_create(PD(v), cq_of(&fx_main), NULL, IBV_QPT_RC, 4, 1, 0)) \
	OBJ(createsrq, NEEDDEV, "ibv_create_srq", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", srq_create(PD(v), 4, 1, 0)) \
	OBJ(createah, NEEDDEV, "ibv_create_ah", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", ah_create(PD(v), 1, 1, 1)) \
	OBJ(ahfromwc, NEEDDEV, "ibv_create_ah_from_wc", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", from_wc(PD(v), 1, 0)) \
	OBJ(allocmw, NEEDDEV, "ibv_alloc_mw", ALL, INL_NULL("NULL EINVAL"), "SIGSEGV", "NULL EINVAL", PTR(ibv_alloc_mw(PD(v), IBV_MW_TYPE_1))) \
	OBJ(unimportpd, NEEDDEV, "ibv_unimport_pd", ALL, "void", "SIGSEGV", "void", VOID(ibv_unimport_pd(PD(v)))) \
	OBJ(importmr, NEEDDEV, "ibv_import_mr", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_import_mr(PD(v), 1))) \
	/* completion channels and CQs */                                                              \
	OBJ(destroych, NEEDDEV, "ibv_destroy_comp_channel", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_destroy_comp_channel(CH(v)))) \
	OBJ(cqevent, NEEDDEV, "ibv_get_cq_event", ALL, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", cq_event(v)) \
	OBJ(cqonch, NEEDDEV, "ibv_create_cq(channel)", NONULL, "", "", "NULL EINVAL", cq_create(C, 4, CH(v), 0)) \
	OBJ(destroycq, NEEDDEV, "ibv_destroy_cq", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_destroy_cq(CQ(v)))) \
	OBJ(resizecq, NEEDDEV, "ibv_resize_cq", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_resize_cq(CQ(v), 32))) \
	OBJ(pollcq, NEEDDEV, "ibv_poll_cq", ALL, INL_NULL("-1 EINVAL"), "SIGSEGV", "-1 EINVAL", poll1(CQ(v), 1)) \
	OBJ(notify, NEEDDEV, "ibv_req_notify_cq", ALL, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", POS(ibv_req_notify_cq(CQ(v), 0))) \
	OBJ(ackcq, NEEDDEV, "ibv_ack_cq_events", ALL, "void", "SIGSEGV", "void", VOID(ibv_ack_cq_events(CQ(v), 1))) \
	OBJ(qponcq, NEEDDEV, "ibv_create_qp(send_cq)", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", qp_create(P, CQ(v), NULL, IBV_QPT_RC, 4, 1, 0)) \
	/* out-of-range values on live objects */                                                      \
	X(qport0, NEEDDEV, "ibv_query_port(port 0)", "EINVAL", "=", query_port(C, 0)) \
	X(qport2, NEEDDEV, "ibv_query_port(port 2)", "EINVAL", "=", query_port(C, 2)) \
	X(qport255, NEEDDEV, "ibv_query_port(port 255)", "EINVAL", "=", query_port(C, 255)) \
	X(qgid0, NEEDDEV, "ibv_query_gid(port 0)", "-1 EINVAL", "=", query_gid(C, 0, 0)) \
	X(qgid255, NEEDDEV, "ibv_query_gid(port 255)", "-1 EINVAL", "=", query_gid(C, 255, 0)) \
	X(qgidbig, NEEDDEV, "ibv_query_gid(index 100000)", "-1 EINVAL", "=", query_gid(C, 1, 100000)) \
	X(qgidneg, NEEDDEV, "ibv_query_gid(index -1)", "-1 EINVAL", "=", query_gid(C, 1, -1)) \
	X(qpkey0, NEEDDEV, "ibv_query_pkey(port 0)", "-1 ENOENT", "=", query_pkey(C, 0, 0)) \
	X(qpkeybig, NEEDDEV, "ibv_query_pkey(index 100000)", "-1 ENOENT", "=", query_pkey(C, 1, 100000)) \
	X(pkeymiss, NEEDDEV, "ibv_get_pkey_index(pkey 0x1234)", "-1 ENOENT", "=", NEG(ibv_get_pkey_index(C, 1, 0x1234))) \
	X(pkeyport, NEEDDEV, "ibv_get_pkey_index(port 255)", "-1 ENOENT", "=", NEG(ibv_get_pkey_index(C, 255, 0xffff))) \
	X(qgidex_port, NEEDDEV, "ibv_query_gid_ex(port 255)", "EINVAL", "=", query_gid_ex(C, 255, 0, 0)) \
	X(qgidex_idx, NEEDDEV, "ibv_query_gid_ex(index 100000)", "EINVAL", "=", query_gid_ex(C, 1, 100000, 0)) \
	X(qgidex_flags, NEEDDEV, "ibv_query_gid_ex(flags 1)", "EINVAL", "=", query_gid_ex(C, 1, 0, 1)) \
	X(qgidtab_0, NEEDDEV, "ibv_query_gid_table(max_entries 0)", "-EINVAL", "=", query_gid_table(C, 0, 0)) \
	X(qgidtab_flags, NEEDDEV, "ibv_query_gid_table(flags 1)", "-EINVAL", "=", query_gid_table(C, 64, 1)) \
	X(cq_0, NEEDDEV, "ibv_create_cq(cqe 0)", "NULL EINVAL", "=", cq_create(C, 0, NULL, 0)) \
	X(cq_neg, NEEDDEV, "ibv_create_cq(cqe -1)", "NULL EINVAL", "=", cq_create(C, -1, NULL, 0)) \
	X(cq_huge, NEEDDEV, "ibv_create_cq(cqe INT_MAX)", "NULL EINVAL", "=", cq_create(C, INT_MAX, NULL, 0)) \
	X(cq_vec, NEEDDEV, "ibv_create_cq(comp_vector 1000)", "NULL EINVAL", "=", cq_create(C, 4, NULL, 1000)) \
	X(cq_vecneg, NEEDDEV, "ibv_create_cq(comp_vector -1)", "NULL EINVAL", "=", cq_create(C, 4, NULL, -1)) \
	X(resize_0, NEEDDEV, "ibv_resize_cq(cqe 0)", "EINVAL", "=", POS(ibv_resize_cq(cq_of(&fx_main), 0))) \
	X(resize_neg, NEEDDEV, "ibv_resize_cq(cqe -1)", "EINVAL", "=", POS(ibv_resize_cq(cq_of(&fx_main), -1))) \
	X(resize_huge, NEEDDEV, "ibv_resize_cq(cqe INT_MAX)", "EINVAL", "=", POS(ibv_resize_cq(cq_of(&fx_main), INT_MAX))) \
	X(poll_neg, NEEDDEV, "ibv_poll_cq(num_entries -1)", "0", "=", poll1(cq_of(&fx_main), -1)) \
	X(poll_0, NEEDDEV, "ibv_poll_cq(num_entries 0)", "0", "=", poll1(cq_of(&fx_main), 0)) \
	X(notify_2, NEEDDEV, "ibv_req_notify_cq(solicited_only 2)", "0", "=", POS(ibv_req_notify_cq(cq_of(&fx_main), 2))) \
	X(importpd_h, NEEDDEV, "ibv_import_pd(handle 12345)", "NULL EOPNOTSUPP", "=", PTR(ibv_import_pd(C, 12345))) \
	X(importdm_h, NEEDDEV, "ibv_import_dm(handle 1)", "NULL EOPNOTSUPP", "=", PTR(ibv_import_dm(C, 1))) \
	X(initah_port, NEEDDEV, "ibv_init_ah_from_wc(port 255, GRH)", "-1 EPROTONOSUPPORT", "=", init_from_wc(C, 255, 1))

CASES(FN_X, FN_OBJ)
static const struct bcase cases[] = { CASES(ROW_X, ROW_OBJ) };

int main(void)
{
	return badinput_main(cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
