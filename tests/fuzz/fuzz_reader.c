/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_reader.c - libFuzzer target for the ETL reader
 * (writer/etl_reader.c): open any byte string as an ETL file, walk every
 * buffer and record, and run the payload decoders dump uses on the known
 * hooks. Malformed input must end in a clean error, never a crash, an
 * out-of-bounds read or a hang. Seed it with the real files in tests/data/samples.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "producer/etw_encode.h"
#include "writer/etl_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* sink - keep the reads observable so the compiler cannot drop them. */
static volatile uint64_t sink;

static void touch_record(const struct etl_record *r)
{
	uint64_t acc = r->marker ^ r->size ^ r->hook_id ^ r->ts ^ r->pebs_index;

	/* Every byte the reader says belongs to the record must be readable. */
	for (size_t i = 0; i < r->size; i++) {
		acc += r->data[i];
	}
	for (unsigned i = 0; i < r->pmc_count; i++) {
		acc ^= r->pmc[i];
	}
	if (r->payload_len) {
		acc += r->payload[r->payload_len - 1];
	}
	if (r->kind == ETL_KIND_PERFINFO) {
		struct etw_cswitch cs;
		struct etw_spinlock sl;
		struct etw_ccswap_buffer cb;

		if (r->hook_id == ETW_HOOK_CSWITCH &&
		    etw_decode_cswitch(r->payload, r->payload_len, &cs) > 0) {
			acc += cs.new_tid;
		} else if (r->hook_id == ETW_HOOK_SPINLOCK &&
			   etw_decode_spinlock(r->payload, r->payload_len,
					       r->is64 ? ETL_ARCH_X64 : ETL_ARCH_X86, &sl) > 0) {
			acc += sl.spin_count;
		} else if (r->hook_id == ETW_HOOK_CSWITCH_BATCH &&
			   etw_decode_ccswap_buffer(r->payload, r->payload_len, &cb) > 0) {
			acc += (uint64_t)cb.first_ts;
		}
	}
	sink = acc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_error err;
	struct etl_record r;
	struct etl_reader *d;
	const unsigned *order;
	unsigned n;

	d = etl_reader_open_mem(data, size, "fuzz", &err);
	if (!d) {
		/* The message is one line and carries the name. */
		if (!memchr(err.msg, '\0', sizeof(err.msg)) || strchr(err.msg, '\n') ||
		    strncmp(err.msg, "fuzz: offset 0x", 15) != 0) {
			__builtin_trap();
		}
		return 0;
	}
	sink = etl_reader_logfile(d)->buffers_written + etl_reader_trailing_bytes(d);
	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		size_t pos = 0;
		int rc;

		while ((rc = etl_buffer_next(d, b, &pos, &r, &err)) > 0) {
			touch_record(&r);
		}
		if (rc < 0 && strncmp(err.msg, "fuzz: offset 0x", 15) != 0) {
			__builtin_trap();
		}
	}
	order = etl_reader_cpu_order(d, &n);
	for (unsigned k = 0; k < n; k++) {
		if (order[k] == 0 || order[k] >= etl_reader_buffer_count(d)) {
			__builtin_trap();
		}
	}
	etl_reader_close(d);
	return 0;
}
