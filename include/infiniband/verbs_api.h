/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/verbs_api.h> for libibverbs-rs.
 *
 * verbs.h includes this near its top.  It does two jobs:
 *  - defines RDMA_UAPI_PTR() before the uapi ioctl header is read, so that
 *    pointer members of the shared kernel/user structs are real C pointers
 *    overlaid on a 64-bit slot (the uapi header falls back to a bare
 *    __aligned_u64 when nobody defined it);
 *  - maps the ibv_* spellings of a few types and constants onto the
 *    ib_uverbs_* names the uapi header declares.
 * The names, the union shapes and the guard must match rdma-core 44.
 */
#ifndef VERBS_API_H
#define VERBS_API_H

/*
 * A pointer and its 64-bit wire slot share storage.  On 32-bit targets the
 * pointer occupies the low-addressed or high-addressed half of the slot
 * depending on byte order, and the other half is named <name>_reserved.
 */
/* Tested in this order on purpose: if <stdint.h>/<endian.h> were not read
 * yet, both sides of each test are 0 and the first branch wins, exactly as
 * with rdma-core's header. */
#if UINTPTR_MAX == UINT32_MAX
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define RDMA_UAPI_PTR(_type, _name)                                            \
	union {                                                                \
		struct {                                                       \
			_type _name;                                           \
			__u32 _name##_reserved;                                \
		};                                                             \
		__aligned_u64 _name##_data_u64;                                \
	}
#else
#define RDMA_UAPI_PTR(_type, _name)                                            \
	union {                                                                \
		struct {                                                       \
			__u32 _name##_reserved;                                \
			_type _name;                                           \
		};                                                             \
		__aligned_u64 _name##_data_u64;                                \
	}
#endif
#elif UINTPTR_MAX == UINT64_MAX
#define RDMA_UAPI_PTR(_type, _name)                                            \
	union {                                                                \
		_type _name;                                                   \
		__aligned_u64 _name##_data_u64;                                \
	}
#else
#error "verbs_api.h: unsupported pointer width"
#endif

#include <infiniband/ib_user_ioctl_verbs.h>

/* IPsec ESP flow action: the verbs API reuses the uapi definitions. */
#define ibv_flow_action_esp                        ib_uverbs_flow_action_esp
#define ibv_flow_action_esp_encap                  ib_uverbs_flow_action_esp_encap
#define ibv_flow_action_esp_flags                  ib_uverbs_flow_action_esp_flags
#define ibv_flow_action_esp_keymat                 ib_uverbs_flow_action_esp_keymat
#define ibv_flow_action_esp_keymat_aes_gcm         ib_uverbs_flow_action_esp_keymat_aes_gcm
#define ibv_flow_action_esp_keymat_aes_gcm_iv_algo ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo
#define ibv_flow_action_esp_replay                 ib_uverbs_flow_action_esp_replay
#define ibv_flow_action_esp_replay_bmp             ib_uverbs_flow_action_esp_replay_bmp

#define IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM         IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM
#define IBV_FLOW_ACTION_IV_ALGO_SEQ                IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ
#define IBV_FLOW_ACTION_ESP_REPLAY_NONE            IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE
#define IBV_FLOW_ACTION_ESP_REPLAY_BMP             IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP
#define IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO    IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO
#define IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD     IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD
#define IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL           IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL
#define IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT        IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT
#define IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT          IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT
#define IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT          IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT
#define IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW   IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW

/* ibv_advise_mr() */
#define ibv_advise_mr_advice                       ib_uverbs_advise_mr_advice
#define IBV_ADVISE_MR_ADVICE_PREFETCH              IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH
#define IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE        IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE
#define IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT     IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT
#define IBV_ADVISE_MR_FLAG_FLUSH                   IB_UVERBS_ADVISE_MR_FLAG_FLUSH

/* struct ibv_port_attr.flags */
#define IBV_QPF_GRH_REQUIRED                       IB_UVERBS_QPF_GRH_REQUIRED

/* Access bits the library may drop when the kernel does not know them. */
#define IBV_ACCESS_OPTIONAL_RANGE                  IB_UVERBS_ACCESS_OPTIONAL_RANGE
#define IBV_ACCESS_OPTIONAL_FIRST                  IB_UVERBS_ACCESS_OPTIONAL_FIRST

#endif /* VERBS_API_H */
