/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/arch.h> for libibverbs-rs.
 *
 * Legacy header kept for old programs.  All it still provides is a 64-bit
 * host/network byte-order pair; new code should call htobe64()/be64toh()
 * from <endian.h>.  Memory barrier macros were dropped long ago.
 */
#ifndef INFINIBAND_ARCH_H
#define INFINIBAND_ARCH_H

#include <stdint.h>
#include <endian.h>

#warning "This header is obsolete."

/* Some programs bring their own ntohll(); only define ours when absent. */
#ifndef ntohll
#undef htonll
#undef ntohll
static inline __attribute__((deprecated)) uint64_t htonll(uint64_t host)
{
	return htobe64(host);
}

static inline __attribute__((deprecated)) uint64_t ntohll(uint64_t net)
{
	return be64toh(net);
}
#define htonll htonll
#define ntohll ntohll
#endif

#endif /* INFINIBAND_ARCH_H */
