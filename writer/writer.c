// SPDX-License-Identifier: MIT
/*
 * writer/writer.c - the ETL writer: options, per-CPU buffers with
 * reserve/commit, the deterministic buffer-pool model and its losses, and
 * the end of a session (header buffer, the file completed in its sink).
 *
 * Life of a CPU's buffer (one current buffer per CPU, lent to the producer
 * through writer/backend.h):
 *
 *   buffer_get(cpu, clock)   the CPU's buffer; none held -> take one from
 *     |                      the pool -> pool empty: event lost (-ENOBUFS)
 *   producer writes events at buf.pos in place (header, payload, padding)
 *   buffer_put(buf, ts)      an event does not fit: write it with header
 *     |                      TimeStamp = ts, SequenceNumber = next global
 *     |                      number; the buffer is "in flight" until
 *     |                      ts + flush_latency
 *   finish(end_ts)           write every non-empty buffer with TimeStamp
 *                            end_ts, CPUs in index order; then the header
 *                            buffer
 *
 * The pool model (opts.pool_buffers = N, 0 = unlimited):
 *   in use = CPUs holding a buffer + buffers in flight; a CPU may take a
 *   buffer when in use < N. A flushed buffer returns once the pool clock
 *   (the largest timestamp logged so far, which the producer passes to
 *   buffer_get) reaches flush ts + flush_latency. Returns are never undone,
 *   so timestamps that go backwards across CPUs are deterministic too.
 *   A lost event sets the CPU's "events lost" mark: the next buffer this CPU
 *   writes gets BufferFlag EVENTS_LOST (0x02). buffers_lost (BuffersLost in
 *   the logfile header) counts the times a CPU went without a buffer: one per
 *   run of consecutive losses on a CPU, ended when the CPU gets a buffer.
 *
 * Byte policy: every byte of the file is determined. The producer writes
 * every byte of its events including the alignment padding (zero), and the
 * unused tail of a buffer is zeroed when it is flushed (Windows leaves stale
 * bytes or 0xFF there; readers stop at SavedOffset/Offset, ETL_READERS 2.1).
 *
 * Other choices where the spec is silent:
 *   - the header buffer's TimeStamp is 0 and its ProcessorIndex 0, as in
 *     real files (KERNEL_FACTS 8.1); it is written last, at offset 0;
 *   - reserve: Size 0 and calls after writer_finish() are -EINVAL; an event
 *     over 0xFFFF bytes is -E2BIG whatever the buffer size (Size is a USHORT);
 *     an uncommitted reservation is abandoned by the next reserve on its CPU
 *     or by finish; a buffer holding no committed event is not written;
 *   - finish flushes CPUs in index order, all with TimeStamp end_ts;
 *   - stats: buffers_written/bytes_written count the header buffer once it
 *     is written (at finish), so they equal BuffersWritten/file size then.
 *
 * Single-threaded: one writer is driven by one thread (the simulation).
 *
 * Memory: each CPU's buffer is allocated and touched when the session
 * starts, as the kernel allocates a logger's buffers then (buf_alloc). A
 * buffer that takes a minute to fill would otherwise join the resident set
 * page by page, so a run's memory grew with its duration up to CPUs x
 * buffer size; now it is that from the first switch, and a short trial run
 * shows what a day-long one will take. Up to WRITER_RESIDENT_MAX a writer:
 * the scenario allows 1024 CPUs of 16 MiB (16 GiB), which only a run that
 * fills them should take; past it, buffers fill in as they are written.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "writer/etl_layout.h"
#include "writer/etl_wire.h"
#include "writer/etl_xpress.h"
#include "writer/writer_buffer.h"
#include "writer/writer_defer.h"
#include "writer/writer_internal.h"

/* ProcessorIndex is 11 bits (ETW_PROCESSOR_INDEX_MASK), so at most 2048 CPUs. */
#define MAX_CPUS (ETL_PROCESSOR_INDEX_MASK + 1u)

/* Checks one name: ASCII (it becomes UTF-16LE code units 1:1) and not too long. */
static int check_name(const char *s, const char *not_utf8, const char *too_long, const char **why)
{
	long n = etl_utf16_units(s);

	if (n < 0) {
		*why = not_utf8;
		return -EINVAL;
	}
	if (n > (long)ETL_MAX_NAME_CHARS) {
		*why = too_long;
		return -EINVAL;
	}
	return 0;
}

/* Copy @in to @o with every zero field replaced by its default, and check it. */
static int resolve_opts(const struct writer_opts *in, struct writer_opts *o, const char **why)
{
	int ret;

	if (!in) {
		*why = "opts: NULL";
		return -EINVAL;
	}
	*o = *in;
	if (!o->path || o->path[0] == '\0') {
		*why = "path: empty";
		return -EINVAL;
	}
	if (o->arch != ETL_ARCH_X64 && o->arch != ETL_ARCH_X86) {
		*why = "arch: neither x64 nor x86";
		return -EINVAL;
	}
	o->cpus = o->cpus ? o->cpus : ETL_DEFAULT_CPUS;
	if (o->cpus > MAX_CPUS) {
		*why = "cpus: more than 2048 (ProcessorIndex is 11 bits)";
		return -EINVAL;
	}
	o->buffer_size = o->buffer_size ? o->buffer_size : ETL_DEFAULT_BUFFER_SIZE;
	if (o->buffer_size % ETL_MIN_BUFFER_SIZE != 0 || o->buffer_size > ETL_MAX_BUFFER_SIZE) {
		*why = "buffer_size: not a multiple of 4096 from 4 KiB to 16 MiB";
		return -EINVAL;
	}
	if (o->pool_buffers > ETL_MAX_POOL_BUFFERS) {
		*why = "pool_buffers: more than 1048576";
		return -EINVAL;
	}
	o->clock = o->clock ? o->clock : ETL_CLOCK_QPC;
	if (o->clock != ETL_CLOCK_QPC && o->clock != ETL_CLOCK_SYSTIME &&
	    o->clock != ETL_CLOCK_CYCLES) {
		*why = "clock: not 1 (QPC), 2 (system time) or 3 (CPU cycles)";
		return -EINVAL;
	}
	o->log_file_mode = o->log_file_mode ? o->log_file_mode : ETL_DEFAULT_LOG_FILE_MODE;
	if (o->log_file_mode & ETL_MODE_COMPRESSED) {
		*why = "log_file_mode: compressed mode (0x04000000) comes from the compress option";
		return -EINVAL;
	}
	if (o->compress) {
		o->log_file_mode |= ETL_MODE_COMPRESSED;
	}
	o->logger_name = o->logger_name ? o->logger_name : ETL_DEFAULT_LOGGER_NAME;
	o->logfile_name = o->logfile_name ? o->logfile_name : o->path;
	ret = check_name(o->logger_name,
			 "the session's name is not UTF-8 (the header holds it as UTF-16)",
			 "the session's name is longer than 1024 UTF-16 units", why);
	if (!ret) {
		ret = check_name(o->logfile_name,
				 "the file name is not UTF-8 (the header holds it as UTF-16)",
				 "the file name is longer than 1024 UTF-16 units", why);
	}
	if (ret) {
		return ret;
	}
	if (ETL_BH_LEN + etl_header_len(o->arch, (size_t)etl_utf16_units(o->logger_name),
					(size_t)etl_utf16_units(o->logfile_name)) >
	    o->buffer_size) {
		*why = "buffer_size: too small for the header buffer with these names";
		return -EINVAL;
	}
	o->os_major = o->os_major ? o->os_major : ETL_DEFAULT_OS_MAJOR;
	o->provider_version =
		o->provider_version ? o->provider_version : ETL_DEFAULT_PROVIDER_VERSION;
	o->timer_resolution =
		o->timer_resolution ? o->timer_resolution : ETL_DEFAULT_TIMER_RESOLUTION;
	o->perf_freq = o->perf_freq ? o->perf_freq : ETL_DEFAULT_PERF_FREQ;
	o->cpu_mhz = o->cpu_mhz ? o->cpu_mhz : ETL_DEFAULT_CPU_MHZ;
	o->logger_id = o->logger_id ? o->logger_id : ETL_DEFAULT_LOGGER_ID;
	o->kernel_event_version =
		o->kernel_event_version ? o->kernel_event_version : ETL_DEFAULT_KERNEL_EVENT_VER;
	o->timer_source_clock =
		o->timer_source_clock ? o->timer_source_clock : ETL_DEFAULT_TIMER_SRC_CLOCK;
	o->timer_source_perf =
		o->timer_source_perf ? o->timer_source_perf : ETL_DEFAULT_TIMER_SRC_PERF;
	return 0;
}

int writer_validate_opts(const struct writer_opts *o, const char **why)
{
	struct writer_opts r;
	const char *w = NULL;
	int ret = resolve_opts(o, &r, &w);

	if (why) {
		*why = w;
	}
	return ret;
}

#define WRITER_RESIDENT_MAX ((size_t)512 << 20) /* buffers faulted in at the start */

static void free_writer(struct etl_writer *w)
{
	if (w->cpu && !w->scratch) {
		for (unsigned i = 0; i < w->o.cpus; i++) {
			writer_buf_free(w->cpu[i].buf.base, w->o.buffer_size);
		}
	}
	writer_buf_free(w->scratch, w->o.buffer_size);
	writer_defer_free(w);
	free(w->cpu);
	free(w->hdr);
	free(w->zbuf);
	free(w->inflight);
	free(w);
}

struct etl_writer *writer_create(const struct writer_opts *opts, const struct etl_sink *sink)
{
	struct etl_writer *w = calloc(1, sizeof(*w));
	const char *why;
	int ret;

	if (!w) {
		return NULL; /* errno = ENOMEM */
	}
	ret = resolve_opts(opts, &w->o, &why);
	if (!ret && !sink) {
		ret = -EINVAL;
	}
	if (ret) {
		goto err_free;
	}
	ret = -ENOMEM;
	w->cpu = calloc(w->o.cpus, sizeof(*w->cpu));
	if (!w->cpu) {
		goto err_free;
	}
	if (sink->discard && !w->o.compress) {
		/*
		 * Bytes that go nowhere (the null device) need no buffer each: every
		 * CPU writes over one, which only its counts are read of. (Compressed,
		 * a buffer's bytes decide its length in the file: each its own.)
		 */
		w->scratch = writer_buf_alloc(w->o.buffer_size, true);
		if (!w->scratch) {
			goto err_free;
		}
	}
	for (unsigned i = 0; i < w->o.cpus; i++) {
		struct etl_buf *b = &w->cpu[i].buf;

		b->base = w->scratch ? w->scratch
				     : writer_buf_alloc(w->o.buffer_size,
							(size_t)(i + 1u) * w->o.buffer_size <=
								WRITER_RESIDENT_MAX);
		if (!b->base) {
			goto err_free;
		}
		b->size = w->o.buffer_size;
		b->pos = ETL_BH_LEN;
		b->cpu = i;
	}
	w->hdr = calloc(1, w->o.buffer_size);
	if (!w->hdr) {
		goto err_free;
	}
	if (w->o.compress) {
		w->zbuf = malloc(w->o.buffer_size);
		if (!w->zbuf) {
			goto err_free;
		}
	}
	if (w->o.pool_buffers) {
		w->inflight = calloc(w->o.pool_buffers, sizeof(*w->inflight));
		if (!w->inflight) {
			goto err_free;
		}
	}
	etl_header_encode(w->hdr, &w->o);
	/* The strings and path are borrowed: the header holds the names now. */
	w->o.path = NULL;
	w->o.logger_name = NULL;
	w->o.logfile_name = NULL;
	w->next_seq = 1;
	ret = sink->ops->begin(sink->ctx, w->o.buffer_size);
	if (ret) {
		goto err_free;
	}
	w->sink = *sink;
	return w;

err_free:
	free_writer(w);
	errno = -ret;
	return NULL;
}

/* Write @cpu's buffer with TimeStamp @ts and give it back to the pool. */
static int flush_cpu(struct etl_writer *w, unsigned cpu, uint64_t ts)
{
	struct cpu_state *c = &w->cpu[cpu];
	struct etl_buf *b = &c->buf;
	int ret;

	if (w->data_buffers >= UINT32_MAX - 1u) {
		w->err = -EFBIG;
		return w->err;
	}
	ret = writer_write_buffer(w, b, ts, c->lost_pending);
	c->has_buffer = false;
	c->pending = 0;
	b->pos = ETL_BH_LEN;
	b->events = 0;
	b->event_bytes = 0;
	w->n_held--;
	if (ret) {
		return ret;
	}
	c->lost_pending = false;
	return 0;
}

/* Put back a held buffer that holds no event (nothing to write). */
static void drop_empty(struct etl_writer *w, unsigned cpu)
{
	struct cpu_state *c = &w->cpu[cpu];

	c->has_buffer = false;
	c->pending = 0;
	c->buf.pos = ETL_BH_LEN;
	w->n_held--;
}

/*
 * The buffer of @cpu, taken from the pool when it holds none (see
 * backend.h). A CPU that finds the pool empty loses the event: counted, its
 * next buffer marked EVENTS_LOST, and one BuffersLost per run of losses.
 */
static int buffer_get(void *ctx, unsigned cpu, uint64_t clock, struct etl_buf **out)
{
	struct etl_writer *w = ctx;
	struct cpu_state *c;

	if (w->err) {
		return w->err;
	}
	if (w->done || cpu >= w->o.cpus) {
		return -EINVAL;
	}
	if (w->defer) {
		return writer_defer_get(w, cpu, out);
	}
	c = &w->cpu[cpu];
	if (clock > w->pool_clock) {
		w->pool_clock = clock;
	}
	writer_pool_retire(w, w->pool_clock);
	if (!c->has_buffer) {
		if (w->o.pool_buffers && w->n_held + w->n_inflight >= w->o.pool_buffers) {
			w->st.events_lost++;
			c->lost_pending = true;
			if (!c->starved) {
				c->starved = true;
				w->st.buffers_lost++;
			}
			return -ENOBUFS;
		}
		if (!c->buf.base && !(c->buf.base = writer_defer_memory(w, cpu))) {
			return -ENOMEM; /* its memory went with a buffer kept while deferring */
		}
		c->has_buffer = true;
		c->starved = false;
		c->buf.pos = ETL_BH_LEN;
		c->buf.events = 0;
		c->buf.event_bytes = 0;
		w->n_held++;
	}
	*out = &c->buf;
	return 0;
}

static int buffer_put(void *ctx, struct etl_buf *b, uint64_t ts)
{
	struct etl_writer *w = ctx;

	if (w->err) {
		return w->err;
	}
	assert(b->cpu < w->o.cpus && b == &w->cpu[b->cpu].buf && w->cpu[b->cpu].has_buffer);
	if (w->defer) {
		return writer_defer_put(w, b, ts);
	}
	if (b->events == 0) {
		drop_empty(w, b->cpu);
		return 0;
	}
	return flush_cpu(w, b->cpu, ts);
}

static uint32_t max_event(void *ctx)
{
	const struct etl_writer *w = ctx;
	uint32_t max = w->o.buffer_size - ETL_BH_LEN;

	/* Size is a USHORT: no event is larger than 0xFFFF (KERNEL_FACTS 8.1). */
	return max > ETL_MAX_EVENT_SIZE ? ETL_MAX_EVENT_SIZE : max;
}

int writer_reserve(struct etl_writer *w, unsigned cpu, size_t size, uint64_t ts, uint8_t **out)
{
	struct etl_buf *b;
	uint8_t *p;
	int ret;

	assert(out);
	if (w->err) {
		return w->err;
	}
	if (w->done || cpu >= w->o.cpus || size == 0) {
		return -EINVAL;
	}
	if (size > max_event(w)) {
		return -E2BIG;
	}
	w->cpu[cpu].pending = 0; /* an uncommitted reservation is abandoned */
	ret = buffer_get(w, cpu, ts, &b);
	if (ret) {
		return ret;
	}
	if (b->pos + size > b->size) {
		ret = buffer_put(w, b, ts);
		if (!ret) {
			ret = buffer_get(w, cpu, ts, &b);
		}
		if (ret) {
			return ret;
		}
	}
	p = b->base + b->pos;
	memset(p, 0, etl_align8(size)); /* padding and unwritten bytes are zero */
	w->cpu[cpu].pending = (uint32_t)size;
	*out = p;
	return 0;
}

void writer_commit(struct etl_writer *w, unsigned cpu)
{
	struct cpu_state *c;

	assert(cpu < w->o.cpus);
	c = &w->cpu[cpu];
	assert(c->pending != 0);
	if (c->pending == 0) {
		return;
	}
	c->buf.pos += (uint32_t)etl_align8(c->pending);
	c->buf.events++;
	c->buf.event_bytes += c->pending;
	c->pending = 0;
}

int writer_write(struct etl_writer *w, unsigned cpu, uint64_t ts, const void *ev, size_t size)
{
	uint8_t *p;
	int ret = writer_reserve(w, cpu, size, ts, &p);

	if (ret) {
		return ret;
	}
	memcpy(p, ev, size);
	writer_commit(w, cpu);
	return 0;
}

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

int writer_finish(struct etl_writer *w, uint64_t end_ts, int64_t end_time)
{
	struct etl_totals t;
	int ret;

	if (w->done) {
		return w->err ? w->err : -EINVAL;
	}
	w->done = true;
	for (unsigned i = 0; i < w->o.cpus && !w->err; i++) {
		if (!w->cpu[i].has_buffer) {
			continue;
		}
		if (w->cpu[i].buf.events == 0) {
			drop_empty(w, i);
		} else {
			flush_cpu(w, i, end_ts);
		}
	}
	if (w->err) {
		w->sink.ops->abort(w->sink.ctx);
		return w->err;
	}
	t.end_time = end_time;
	t.buffers_written = (uint32_t)(w->data_buffers + 1u);
	t.events_lost = sat32(w->st.events_lost);
	t.buffers_lost = sat32(w->st.buffers_lost);
	etl_header_set_totals(w->hdr, w->o.arch, &t);
	/* Every CPU buffer is free now: CPU 0's serves as the sink's scratch. */
	ret = w->sink.ops->finish(w->sink.ctx, w->hdr, w->o.buffer_size + w->data_bytes,
				  w->cpu[0].buf.base, &w->st.xxh3);
	if (ret) {
		w->sink.ops->abort(w->sink.ctx);
		w->err = ret;
		return ret;
	}
	w->st.buffers_written++;
	w->st.bytes_written += w->o.buffer_size;
	return 0;
}

void writer_get_stats(const struct etl_writer *w, struct writer_stats *st)
{
	*st = w->st;
	st->discarded = w->sink.discard;
	/* events in the buffers still held count as written (they will be) */
	for (unsigned i = 0; i < w->o.cpus; i++) {
		if (w->cpu[i].has_buffer) {
			st->events_written += w->cpu[i].buf.events;
			st->event_bytes += w->cpu[i].buf.event_bytes;
		}
	}
}

int writer_get_error(const struct etl_writer *w)
{
	return w->err;
}

void writer_destroy(struct etl_writer *w)
{
	if (!w) {
		return;
	}
	if (!w->done) {
		w->sink.ops->abort(w->sink.ctx);
	}
	if (w->sink.ops->release) {
		w->sink.ops->release(w->sink.ctx);
	}
	free_writer(w);
}

static const struct etl_backend_ops writer_ops = {
	.buffer_get = buffer_get,
	.buffer_put = buffer_put,
	.max_event = max_event,
};

const struct etl_backend_ops *writer_backend_ops(void)
{
	return &writer_ops;
}
