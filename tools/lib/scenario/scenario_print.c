// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario/scenario_print.c - the effective scenario as YAML (`etwforge gen
 * --print-config`). It walks the same schema tables the loader uses, so
 * every key is printed, in schema order, in a form the loader reads back
 * to the same structs: strings double-quoted with escapes, durations in the
 * largest exact unit, lists in flow style, derived defaults (boot_time,
 * quantum) as their effective values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/scenario/scenario.h"
#include "tools/lib/scenario/scenario_internal.h"

/* A YAML double-quoted string: every byte survives the round trip. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p == '\t') {
			fputs("\\t", f);
		} else if (*p < 0x20 || *p == 0x7F) {
			fprintf(f, "\\x%02x", *p);
		} else {
			fputc(*p, f);
		}
	}
	fputc('"', f);
}

static uint64_t load_uint(const void *p, unsigned size)
{
	uint8_t b;
	uint16_t h;
	uint32_t w;
	uint64_t q;

	switch (size) {
	case 1:
		memcpy(&b, p, 1);
		return b;
	case 2:
		memcpy(&h, p, 2);
		return h;
	case 4:
		memcpy(&w, p, 4);
		return w;
	default:
		memcpy(&q, p, 8);
		return q;
	}
}

static void put_duration(FILE *f, uint64_t ns)
{
	char buf[32];

	sk_format_duration(buf, sizeof(buf), ns);
	fputs(buf, f);
}

void scenario_print_uint(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item)
{
	(void)root;
	(void)item;
	fprintf(f, "%" PRIu64, load_uint((const char *)base + d->off, d->size));
}

void scenario_print_target(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	(void)item;
	fputs(sc->trace.target ? sc->trace.target->name : "?", f);
}

void scenario_print_boot_time(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			      unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	(void)item;
	fprintf(f, "%" PRId64, scenario_effective_boot_time(sc));
}

void scenario_print_start_time(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			       unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	(void)item;
	fprintf(f, "%" PRId64, scenario_effective_start_time(sc));
}

void scenario_print_quantum(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			    unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	(void)item;
	put_duration(f, scenario_effective_quantum(sc));
}

/* The names of @flags's bits, as a flow list. */
static void print_names(FILE *f, unsigned flags, const char *const *names, const unsigned *bits,
			unsigned n)
{
	bool first = true;

	fputc('[', f);
	for (unsigned k = 0; k < n; k++) {
		if (flags & bits[k]) {
			fprintf(f, "%s%s", first ? "" : ", ", names[k]);
			first = false;
		}
	}
	fputc(']', f);
}

void scenario_print_flags(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			  unsigned item)
{
	const struct trace_session_cfg *s = base;

	(void)root;
	(void)d;
	(void)item;
	print_names(f, s->flags, trace_flag_names, trace_flag_bits, TRACE_NFLAGS);
}

void scenario_print_stacks(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item)
{
	const struct trace_session_cfg *s = base;

	(void)root;
	(void)d;
	(void)item;
	print_names(f, s->flags, trace_stack_names, trace_stack_bits, TRACE_NSTACKS);
}

void scenario_print_counters(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item)
{
	const struct scenario *sc = root;
	const struct trace_session_cfg *s = base;

	(void)d;
	fputc('[', f);
	for (unsigned j = 0; j < s->pmc_count && j < SIM_MAX_PMC; j++) {
		fputs(j ? ", " : "", f);
		put_str(f, sc->sess_x[item].counters[j]);
	}
	fputc(']', f);
}

void scenario_print_events(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item)
{
	const struct trace_session_cfg *s = base;

	(void)root;
	(void)d;
	(void)item;
	fputc('[', f);
	for (unsigned j = 0; j < s->pmc_event_count && j < 4; j++) {
		fprintf(f, "%s\"0x%04x\"", j ? ", " : "", (unsigned)s->pmc_events[j]);
	}
	fputc(']', f);
}

void scenario_print_flush_latency(FILE *f, const void *root, const struct sk_desc *d,
				  const void *base, unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	put_duration(f, sc->sess_x[item].flush_latency_ns);
}

static void put_names(FILE *f, const char names[][SCENARIO_NAME_MAX], unsigned n)
{
	fputc('[', f);
	for (unsigned j = 0; j < n; j++) {
		fputs(j ? ", " : "", f);
		put_str(f, names[j]);
	}
	fputc(']', f);
}

void scenario_print_taken_by(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item)
{
	const struct scenario_lock *l = base;

	(void)root;
	(void)d;
	(void)item;
	put_names(f, l->taken_by, l->ntaken_by);
}

void scenario_print_nested(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item)
{
	const struct scenario_lock *l = base;

	(void)root;
	(void)d;
	(void)item;
	put_names(f, l->nested, l->nnested);
}

void scenario_print_modes(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			  unsigned item)
{
	const struct scenario_lock *l = base;
	bool first = true;

	(void)root;
	(void)d;
	(void)item;
	fputc('{', f);
	for (unsigned m = 0; m < SPIN_MODES; m++) {
		if (l->cfg.mode_weight[m]) {
			fprintf(f, "%s%s: %" PRIu32, first ? "" : ", ", spin_mode_name(m),
				l->cfg.mode_weight[m]);
			first = false;
		}
	}
	fputc('}', f);
}

void scenario_print_wait(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item)
{
	const struct sched_group *g = base;
	bool first = true;

	(void)root;
	(void)d;
	(void)item;
	fputc('{', f);
	for (unsigned r = 0; r < SCHED_WAIT_REASONS; r++) {
		const char *name = scenario_wait_reason_name(r);

		if (!g->wait_weights[r]) {
			continue;
		}
		fputs(first ? "" : ", ", f);
		if (name) {
			fprintf(f, "%s: %" PRIu32, name, g->wait_weights[r]);
		} else {
			fprintf(f, "%u: %" PRIu32, r, g->wait_weights[r]);
		}
		first = false;
	}
	fputc('}', f);
}

static bool cpu_in(const struct sched_group *g, unsigned c)
{
	return c < SCHED_MAX_CPUS && (g->affinity[c / 64] >> (c % 64) & 1);
}

void scenario_print_affinity(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item)
{
	const struct sched_group *g = base;
	bool first = true;

	(void)root;
	(void)d;
	(void)item;
	fputc('[', f);
	for (unsigned c = 0; c < SCHED_MAX_CPUS; c++) {
		unsigned e = c;

		if (!cpu_in(g, c)) {
			continue;
		}
		while (cpu_in(g, e + 1)) {
			e++;
		}
		fputs(first ? "" : ", ", f);
		if (e == c) {
			fprintf(f, "%u", c);
		} else {
			fprintf(f, "\"%u-%u\"", c, e);
		}
		first = false;
		c = e;
	}
	fputc(']', f);
}

void scenario_print_lifetime(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item)
{
	const struct sched_group *g = base;

	(void)root;
	(void)d;
	(void)item;
	put_duration(f, g->lifetime_ns);
}

void scenario_print_wait_mean(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			      unsigned item)
{
	const struct sched_group *g = base;

	(void)root;
	(void)d;
	(void)item;
	put_duration(f, g->wait_ns);
}

void scenario_print_sigma(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			  unsigned item)
{
	uint16_t v;

	memcpy(&v, (const char *)base + d->off, sizeof(v));
	(void)root;
	(void)item;
	if (v == 0) {
		/* the built-in spread */
		v = d->off == offsetof(struct sched_group, burst_sigma) ? 80 : 130;
	} else if (v == SCHED_SIGMA_ZERO) {
		v = 0;
	}
	fprintf(f, "%u.%02u", v / 100u, v % 100u);
}

/* ---- processes, and the keys of a group and the top level that name them ---- */

void scenario_print_name_str(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item)
{
	(void)root;
	(void)item;
	put_str(f, (const char *)base + d->off);
}

/* "auto" until scenario_finish() assigns one */
void scenario_print_pid(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			unsigned item)
{
	const struct scenario_process *p = base;

	(void)root;
	(void)d;
	(void)item;
	if (p->pid) {
		fprintf(f, "%" PRIu32, p->pid);
	} else {
		fputs("auto", f);
	}
}

void scenario_print_parent(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item)
{
	const struct scenario_process *p = base;

	(void)d;
	if (p->parent_by == SCENARIO_PARENT_PID) {
		fprintf(f, "%" PRIu32, p->parent_pid);
	} else if (p->parent_by == SCENARIO_PARENT_NAME) {
		put_str(f, p->parent);
	} else {
		const struct scenario *sc = root;

		put_str(f, scenario_process_default_parent(sc->processes, sc->nprocesses, item));
	}
}

void scenario_print_session(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			    unsigned item)
{
	const struct scenario_process *p = base;

	(void)root;
	(void)d;
	(void)item;
	if (p->session < 0) {
		fputs("none", f);
	} else {
		fprintf(f, "%" PRId32, p->session);
	}
}

void scenario_print_user(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item)
{
	const struct scenario_process *p = base;

	(void)root;
	(void)d;
	(void)item;
	if (p->user[0]) {
		put_str(f, p->user);
	} else {
		fputs("none", f);
	}
}

/* the effective exit: a lifetime not yet resolved counts from start */
void scenario_print_exit(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item)
{
	const struct scenario_process *p = base;
	uint64_t exit_ns = p->lifetime_ns ? p->start_ns + p->lifetime_ns : p->exit_ns;

	(void)root;
	(void)d;
	(void)item;
	if (exit_ns) {
		put_duration(f, exit_ns);
	} else {
		fputs("none", f);
	}
}

/* decimal, or the NTSTATUS hex of a negative code (0xC0000005) */
void scenario_print_exit_status(FILE *f, const void *root, const struct sk_desc *d,
				const void *base, unsigned item)
{
	const struct scenario_process *p = base;

	(void)root;
	(void)d;
	(void)item;
	if (p->exit_status >= 0) {
		fprintf(f, "%" PRId32, p->exit_status);
	} else {
		fprintf(f, "0x%08" PRIX32, (uint32_t)p->exit_status);
	}
}

void scenario_print_group_process(FILE *f, const void *root, const struct sk_desc *d,
				  const void *base, unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	put_str(f, sc->group_x[item].process);
}

void scenario_print_thread_name(FILE *f, const void *root, const struct sk_desc *d,
				const void *base, unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	put_str(f, sc->group_x[item].thread_name);
}

void scenario_print_hot(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			unsigned item)
{
	const struct scenario *sc = root;
	const struct scenario_group_x *x = &sc->group_x[item];

	(void)d;
	(void)base;
	fputc('{', f);
	for (unsigned k = 0; k < x->nhot; k++) {
		fprintf(f, "%s", k ? ", " : "");
		put_str(f, x->hot[k].fn);
		fprintf(f, ": %" PRIu32, x->hot[k].weight);
	}
	fputc('}', f);
}

void scenario_print_profile_interval(FILE *f, const void *root, const struct sk_desc *d,
				     const void *base, unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	(void)item;
	put_duration(f, (uint64_t)sc->ident.profile_interval * 100u);
}

void scenario_print_process_images(FILE *f, const void *root, const struct sk_desc *d,
				   const void *base, unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	scenario_print_images(f, &sc->images, (int)item);
}

void scenario_print_drivers(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			    unsigned item)
{
	const struct scenario *sc = root;

	(void)d;
	(void)base;
	(void)item;
	scenario_print_images(f, &sc->images, SCENARIO_IMAGE_DRIVER);
}

static void put_value(FILE *f, const struct scenario *sc, const struct sk_desc *d, const void *base,
		      unsigned item)
{
	const char *p = (const char *)base + d->off;
	uint64_t v;
	int e;

	switch (d->kind) {
	case SK_UINT:
		scenario_print_uint(f, sc, d, base, item);
		break;
	case SK_BOOL: {
		bool b;

		memcpy(&b, p, sizeof(b));
		fputs(b ? "true" : "false", f);
		break;
	}
	case SK_STR:
		put_str(f, p);
		break;
	case SK_DUR:
		memcpy(&v, p, sizeof(v));
		put_duration(f, v);
		break;
	case SK_ENUM:
		memcpy(&e, p, sizeof(e));
		if (e >= 0 && (unsigned)e < d->nnames && d->names[e]) {
			fputs(d->names[e], f);
		} else {
			fprintf(f, "%d", e);
		}
		break;
	default:
		d->print(f, sc, d, base, item);
		break;
	}
}

static void indent(FILE *f, unsigned n)
{
	fprintf(f, "%*s", (int)n, "");
}

/*
 * Keys of @table at @ind spaces. A list item's first key goes after its
 * "- " (@dash), the others line up with it.
 */
static void put_table(FILE *f, const struct scenario *sc, const struct sk_desc *table,
		      const void *base, unsigned item, unsigned ind, bool dash)
{
	for (const struct sk_desc *d = table; d->key; d++) {
		if (d->kind == SK_CUSTOM && !d->print) {
			continue; /* a refused key (its apply says what replaced it) */
		}
		if (dash && d == table) {
			indent(f, ind - 2);
			fputs("- ", f);
		} else {
			indent(f, ind);
		}
		fprintf(f, "%s:", d->key);
		if (d->kind == SK_MAP) {
			fputc('\n', f);
			put_table(f, sc, d->sub, base, item, ind + 2, false);
		} else if (d->kind == SK_LIST) {
			unsigned n = sk_count(sc, d);

			if (n == 0) {
				fputs(" []\n", f);
				continue;
			}
			fputc('\n', f);
			for (unsigned i = 0; i < n; i++) {
				put_table(f, sc, d->sub, sk_item(sc, d, i), i, ind + 4, true);
			}
		} else {
			fputc(' ', f);
			put_value(f, sc, d, base, item);
			fputc('\n', f);
		}
	}
}

void scenario_print(FILE *f, const struct scenario *sc)
{
	fputs("# etwforge scenario: the effective configuration, every key (README: "
	      "Scenario format)\n",
	      f);
	put_table(f, sc, scenario_schema.keys, sc, 0, 0, false);
}
