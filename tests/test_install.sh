#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/test_install.sh BUILD SOURCE - the installed library works for a
# user: `meson install` into a scratch DESTDIR, build the two examples of
# tools/examples/ with `pkg-config --cflags --libs etwforge` against the
# installed files only, run them, and check what count_switches counts
# against `etwforge dump --stats` (the installed tool) of the same file.
# Also: the installed library exports etwforge_ symbols only, and so does the
# static one (count_switches linked with it alone counts the same); the manuals and
# the bash completion are installed; the mutator plug-in
# (libetwforge_mutator.so) exports its entry points only, its static form
# (libetwforge_mutator.a) beside it defines them only, and the fuzz
# harness example builds and runs against it (libFuzzer when clang has it).
set -eu
build=$1
src=$2
tmp=$(mktemp -d /tmp/etwforge-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
	echo "test_install: $*" >&2
	exit 1
}

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
pc=$(find "$tmp/root" -name etwforge.pc | head -n 1)
[ -n "$pc" ] || fail "no etwforge.pc installed"
lib=$(find "$tmp/root" -name 'libetwforge.so.1' | head -n 1)
[ -n "$lib" ] || fail "no libetwforge.so.1 installed"
bin=$(find "$tmp/root" -path '*/bin/etwforge' | head -n 1)
[ -n "$bin" ] || fail "no etwforge installed"
[ -f "$(dirname "$pc")/../../include/etwforge/etwforge.h" ] ||
	[ -n "$(find "$tmp/root" -path '*include/etwforge/etwforge.h')" ] || fail "no etwforge.h installed"
[ -z "$(find "$tmp/root" -path '*include/etwforge/*' ! -name etwforge.h ! -type d)" ] ||
	fail "headers other than etwforge.h are installed"

# only etwforge_ symbols leave the library
others=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^etwforge_' || true)
[ -z "$others" ] || fail "exported symbols that are not etwforge_: $others"

# the mutator plug-in: installed beside the library, the fuzzer entry points only
mut=$(find "$tmp/root" -name 'libetwforge_mutator.so' | head -n 1)
[ -n "$mut" ] || fail "no libetwforge_mutator.so installed"
mexp=$(nm -D --defined-only "$mut" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$mexp" = "LLVMFuzzerCustomCrossOver LLVMFuzzerCustomMutator afl_custom_deinit afl_custom_describe afl_custom_fuzz afl_custom_init " ] ||
	fail "libetwforge_mutator.so exports: $mexp"
# and its static form beside it, defining the same names and no other global one
mar=$(find "$tmp/root" -name 'libetwforge_mutator.a' | head -n 1)
[ -n "$mar" ] && [ "$(dirname "$mar")" = "$(dirname "$mut")" ] ||
	fail "no libetwforge_mutator.a installed beside libetwforge_mutator.so"
mdef=$(nm -g --defined-only "$mar" | awk 'NF == 3 { print $3 }' | sort | tr '\n' ' ')
[ "$mdef" = "$mexp" ] || fail "libetwforge_mutator.a defines: $mdef"

# build the examples against the installed files only (no source tree include path)
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
flags=$(pkg-config --cflags --libs etwforge) || fail "pkg-config --cflags --libs etwforge failed"
# a library built with -Db_sanitize=address,undefined (clang: -Db_lundef=false) needs its
# runtime in the program: link the examples the same way
if nm -D "$lib" | grep -q ' U __asan_'; then
	flags="-fsanitize=address,undefined $flags"
fi
for ex in gen_trace count_switches; do
	${CC:-cc} -std=c11 -Wall -Werror ${EXAMPLE_CFLAGS:-} "$src/tools/examples/$ex.c" $flags -o "$tmp/$ex" ||
		fail "$ex does not build against the installed library"
done
export LD_LIBRARY_PATH="$(dirname "$lib")"

# the fuzz harness of the README: a plain build reads a corpus file; with
# clang's libFuzzer, a short run with the installed mutator linked in
${CC:-cc} -std=c11 -Wall -Werror ${EXAMPLE_CFLAGS:-} "$src/tools/examples/etl_harness.c" $flags \
	-o "$tmp/harness" ||
	fail "etl_harness does not build"
"$bin" corpus -q --out "$tmp/seeds" || fail "corpus failed"
"$tmp/harness" "$tmp/seeds/ccswap-tid-table-17th-thread.etl" | grep -q ' records$' ||
	fail "etl_harness did not read a corpus file"
# (not against a library built with gcc's sanitizers: one process cannot hold gcc's
# and clang's ASan runtimes; the clang and unsanitized builds run it)
if [ -n "${EXAMPLE_CFLAGS:-}" ] && ! ${CC:-cc} --version | grep -q clang; then
	echo "test_install: the libFuzzer harness is not built against gcc's ASan runtime"
elif command -v clang >/dev/null && echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
	clang -fsanitize=fuzzer -x c - -o "$tmp/lf-probe" 2>/dev/null; then
	clang -O1 -g -fsanitize=fuzzer ${EXAMPLE_CFLAGS:-} -DETL_LIBFUZZER \
		"$src/tools/examples/etl_harness.c" $flags -letwforge_mutator -o "$tmp/harness_lf" ||
		fail "the libFuzzer harness does not build"
	"$tmp/harness_lf" -runs=300 -seed=1 "$tmp/seeds" >"$tmp/lf.log" 2>&1 ||
		fail "the libFuzzer harness failed: $(tail -n 5 "$tmp/lf.log")"
fi

# the static library: count_switches linked with it alone (no libetwforge.so needed), and
# only etwforge_ names defined in it for a program to see
astat=$(find "$tmp/root" -name 'libetwforge.a' | head -n 1)
[ -n "$astat" ] || fail "no libetwforge.a installed"
aothers=$(nm --defined-only "$astat" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' | grep -v '^etwforge_' || true)
[ -z "$aothers" ] || fail "libetwforge.a defines global names that are not etwforge_: $(echo $aothers | head -c 300)"
# (the C library's own libm stays shared: glibc's static libm needs a static libc)
sflags="$(pkg-config --cflags etwforge) -Wl,-Bstatic $(pkg-config --static --libs etwforge |
	sed 's/ -lm\b//') -Wl,-Bdynamic -lm"
if nm -D "$lib" | grep -q ' U __asan_'; then
	sflags="-fsanitize=address,undefined $sflags"
fi
${CC:-cc} -std=c11 -Wall -Werror ${EXAMPLE_CFLAGS:-} "$src/tools/examples/count_switches.c" $sflags \
	-o "$tmp/count_static" || fail "count_switches does not link with pkg-config --static --libs etwforge"
! readelf -d "$tmp/count_static" | grep -q 'libetwforge' || fail "count_static still needs libetwforge.so"

"$tmp/gen_trace" "$tmp/t.etl" >"$tmp/gen.out" || fail "gen_trace failed"
grep -q ' switches in ' "$tmp/gen.out" || fail "gen_trace said: $(cat "$tmp/gen.out")"
"$bin" gen -q --duration 100ms -o "$tmp/d.etl" || fail "the installed etwforge failed"

for f in "$tmp/t.etl" "$tmp/d.etl" "$tmp/d-2.etl"; do
	"$tmp/count_switches" "$f" >"$tmp/count" || fail "count_switches $f failed"
	"$tmp/count_static" "$f" | cmp -s - "$tmp/count" ||
		fail "count_switches linked statically counts $f otherwise"
	"$bin" dump --stats "$f" >"$tmp/stats" || fail "dump --stats $f failed"
	for form in idle_short idle lite full; do
		want=$(awk -v f="$form" '$1 == f { print $2 }' "$tmp/stats")
		got=$(awk -v f="$form" '$1 == f { print $2 }' "$tmp/count")
		[ "${want:-0}" = "$got" ] || fail "$f: $form: count_switches $got, dump --stats ${want:-0}"
	done
	want=$(awk '$1 == "PERFINFO64" && $2 == "0x0524" { print $3 }' "$tmp/stats")
	got=$(awk '$1 == "cswitch" { print $2 }' "$tmp/count")
	[ "${want:-0}" = "$got" ] || fail "$f: plain CSwitch: count_switches $got, dump --stats ${want:-0}"
	total=$(awk '$1 == "cpu" { n += $3 } END { print n + 0 }' "$tmp/count")
	sum=$(awk '$1 != "cpu" { n += $2 } END { print n + 0 }' "$tmp/count")
	[ "$total" = "$sum" ] || fail "$f: per-CPU counts $total, per-form counts $sum"
	[ "$total" -gt 0 ] || fail "$f: no switch counted"
done
# the manuals (when scdoc built them) and the bash completion
if [ -f "$build/doc/etwforge.1" ]; then
	for page in man1/etwforge.1 man5/etwforge-scenario.5 man5/etwforge-truth.5; do
		m=$(find "$tmp/root" -path "*/man/$page" | head -n 1)
		[ -n "$m" ] || fail "$page not installed"
		if command -v man >/dev/null 2>&1; then
			MANWIDTH=80 man -l "$m" 2>/dev/null | grep -q '^NAME' || fail "man -l $page shows no NAME"
		fi
	done
fi
[ -n "$(find "$tmp/root" -path '*/bash-completion/completions/etwforge')" ] ||
	fail "no bash completion installed"
# the Python package: installed with the note of where the library is, it runs
# README's example consumer test with only the scratch prefix on its path (not
# in a sanitizer build, whose library an uninstrumented python3 cannot load)
pkg=$(find "$tmp/root" -path '*/etwforge/_config.py' | head -n 1)
if [ -n "$pkg" ] && ! nm -D "$lib" | grep -q ' U __asan_'; then
	(cd "$tmp" && env -u ETWFORGE_LIB PYTHONPATH="$(dirname "$(dirname "$pkg")")" \
		python3 "$src/tools/examples/consumer_test.py") >/dev/null ||
		fail "the installed Python package does not run tools/examples/consumer_test.py"
fi
echo "test_install: ok"
