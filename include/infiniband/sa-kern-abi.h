/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/sa-kern-abi.h> for libibverbs-rs.
 *
 * Legacy header: the kernel path record now lives in <rdma/ib_user_sa.h>;
 * the two old names are kept as aliases of it.
 */
#ifndef INFINIBAND_SA_KERN_ABI_H
#define INFINIBAND_SA_KERN_ABI_H

#warning "This header is obsolete, use rdma/ib_user_sa.h instead"

#include <rdma/ib_user_sa.h>

#define ib_kern_path_rec ib_user_path_rec
#define ibv_kern_path_rec ib_user_path_rec

#endif /* INFINIBAND_SA_KERN_ABI_H */
