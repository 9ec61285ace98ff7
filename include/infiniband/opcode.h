/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/opcode.h> for libibverbs-rs.
 *
 * InfiniBand BTH opcodes.  An opcode byte is a transport class in the top
 * three bits plus an operation in the low five bits.  The class and
 * operation values are enumerators too, and IBV_OPCODE(transport, op)
 * builds the combined enumerator declaration from them.
 */
#ifndef INFINIBAND_OPCODE_H
#define INFINIBAND_OPCODE_H

#define IBV_OPCODE(transport, op)                                              \
	IBV_OPCODE_##transport##_##op =                                        \
		IBV_OPCODE_##transport + IBV_OPCODE_##op

enum {
	/* transport classes (bits 7..5) */
	IBV_OPCODE_RC                                  = 0x00,
	IBV_OPCODE_UC                                  = 0x20,
	IBV_OPCODE_RD                                  = 0x40,
	IBV_OPCODE_UD                                  = 0x60,

	/* operations (bits 4..0) */
	IBV_OPCODE_SEND_FIRST                          = 0x00,
	IBV_OPCODE_SEND_MIDDLE                         = 0x01,
	IBV_OPCODE_SEND_LAST                           = 0x02,
	IBV_OPCODE_SEND_LAST_WITH_IMMEDIATE            = 0x03,
	IBV_OPCODE_SEND_ONLY                           = 0x04,
	IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE            = 0x05,
	IBV_OPCODE_RDMA_WRITE_FIRST                    = 0x06,
	IBV_OPCODE_RDMA_WRITE_MIDDLE                   = 0x07,
	IBV_OPCODE_RDMA_WRITE_LAST                     = 0x08,
	IBV_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE      = 0x09,
	IBV_OPCODE_RDMA_WRITE_ONLY                     = 0x0a,
	IBV_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE      = 0x0b,
	IBV_OPCODE_RDMA_READ_REQUEST                   = 0x0c,
	IBV_OPCODE_RDMA_READ_RESPONSE_FIRST            = 0x0d,
	IBV_OPCODE_RDMA_READ_RESPONSE_MIDDLE           = 0x0e,
	IBV_OPCODE_RDMA_READ_RESPONSE_LAST             = 0x0f,
	IBV_OPCODE_RDMA_READ_RESPONSE_ONLY             = 0x10,
	IBV_OPCODE_ACKNOWLEDGE                         = 0x11,
	IBV_OPCODE_ATOMIC_ACKNOWLEDGE                  = 0x12,
	IBV_OPCODE_COMPARE_SWAP                        = 0x13,
	IBV_OPCODE_FETCH_ADD                           = 0x14,

	/* RC */
	IBV_OPCODE_RC_SEND_FIRST                       = 0x00,
	IBV_OPCODE_RC_SEND_MIDDLE                      = 0x01,
	IBV_OPCODE_RC_SEND_LAST                        = 0x02,
	IBV_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE         = 0x03,
	IBV_OPCODE_RC_SEND_ONLY                        = 0x04,
	IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE         = 0x05,
	IBV_OPCODE_RC_RDMA_WRITE_FIRST                 = 0x06,
	IBV_OPCODE_RC_RDMA_WRITE_MIDDLE                = 0x07,
	IBV_OPCODE_RC_RDMA_WRITE_LAST                  = 0x08,
	IBV_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE   = 0x09,
	IBV_OPCODE_RC_RDMA_WRITE_ONLY                  = 0x0a,
	IBV_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE   = 0x0b,
	IBV_OPCODE_RC_RDMA_READ_REQUEST                = 0x0c,
	IBV_OPCODE_RC_RDMA_READ_RESPONSE_FIRST         = 0x0d,
	IBV_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE        = 0x0e,
	IBV_OPCODE_RC_RDMA_READ_RESPONSE_LAST          = 0x0f,
	IBV_OPCODE_RC_RDMA_READ_RESPONSE_ONLY          = 0x10,
	IBV_OPCODE_RC_ACKNOWLEDGE                      = 0x11,
	IBV_OPCODE_RC_ATOMIC_ACKNOWLEDGE               = 0x12,
	IBV_OPCODE_RC_COMPARE_SWAP                     = 0x13,
	IBV_OPCODE_RC_FETCH_ADD                        = 0x14,

	/* UC */
	IBV_OPCODE_UC_SEND_FIRST                       = 0x20,
	IBV_OPCODE_UC_SEND_MIDDLE                      = 0x21,
	IBV_OPCODE_UC_SEND_LAST                        = 0x22,
	IBV_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE         = 0x23,
	IBV_OPCODE_UC_SEND_ONLY                        = 0x24,
	IBV_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE         = 0x25,
	IBV_OPCODE_UC_RDMA_WRITE_FIRST                 = 0x26,
	IBV_OPCODE_UC_RDMA_WRITE_MIDDLE                = 0x27,
	IBV_OPCODE_UC_RDMA_WRITE_LAST                  = 0x28,
	IBV_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE   = 0x29,
	IBV_OPCODE_UC_RDMA_WRITE_ONLY                  = 0x2a,
	IBV_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE   = 0x2b,

	/* RD */
	IBV_OPCODE_RD_SEND_FIRST                       = 0x40,
	IBV_OPCODE_RD_SEND_MIDDLE                      = 0x41,
	IBV_OPCODE_RD_SEND_LAST                        = 0x42,
	IBV_OPCODE_RD_SEND_LAST_WITH_IMMEDIATE         = 0x43,
	IBV_OPCODE_RD_SEND_ONLY                        = 0x44,
	IBV_OPCODE_RD_SEND_ONLY_WITH_IMMEDIATE         = 0x45,
	IBV_OPCODE_RD_RDMA_WRITE_FIRST                 = 0x46,
	IBV_OPCODE_RD_RDMA_WRITE_MIDDLE                = 0x47,
	IBV_OPCODE_RD_RDMA_WRITE_LAST                  = 0x48,
	IBV_OPCODE_RD_RDMA_WRITE_LAST_WITH_IMMEDIATE   = 0x49,
	IBV_OPCODE_RD_RDMA_WRITE_ONLY                  = 0x4a,
	IBV_OPCODE_RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE   = 0x4b,
	IBV_OPCODE_RD_RDMA_READ_REQUEST                = 0x4c,
	IBV_OPCODE_RD_RDMA_READ_RESPONSE_FIRST         = 0x4d,
	IBV_OPCODE_RD_RDMA_READ_RESPONSE_MIDDLE        = 0x4e,
	IBV_OPCODE_RD_RDMA_READ_RESPONSE_LAST          = 0x4f,
	IBV_OPCODE_RD_RDMA_READ_RESPONSE_ONLY          = 0x50,
	IBV_OPCODE_RD_ACKNOWLEDGE                      = 0x51,
	IBV_OPCODE_RD_ATOMIC_ACKNOWLEDGE               = 0x52,
	IBV_OPCODE_RD_COMPARE_SWAP                     = 0x53,
	IBV_OPCODE_RD_FETCH_ADD                        = 0x54,

	/* UD */
	IBV_OPCODE_UD_SEND_ONLY                        = 0x64,
	IBV_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE         = 0x65
};

#endif /* INFINIBAND_OPCODE_H */
