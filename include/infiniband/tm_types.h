/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/tm_types.h> for libibverbs-rs.
 *
 * Wire headers of hardware tag matching: the tag-matching header (TMH)
 * that precedes a tagged message, and the rendezvous header (RVH) that
 * describes the remote buffer of a rendezvous transfer.  Big-endian fields
 * are as they appear on the wire.
 */
#ifndef _TM_TYPES_H
#define _TM_TYPES_H

#include <linux/types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ibv_tmh_op {
	IBV_TMH_NO_TAG = 0,
	IBV_TMH_RNDV   = 1,
	IBV_TMH_FIN    = 2,
	IBV_TMH_EAGER  = 3,
};

struct ibv_tmh {
	uint8_t opcode;       /* an enum ibv_tmh_op value */
	uint8_t reserved[3];  /* zero */
	__be32 app_ctx;       /* not interpreted by the device */
	__be64 tag;
};

struct ibv_rvh {
	__be64 va;
	__be32 rkey;
	__be32 len;
};

#ifdef __cplusplus
}
#endif

#endif /* _TM_TYPES_H */
