/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_xpress.h - the plain LZ77 variant of Microsoft's XPRESS compression
 * (MS-XCA section 2.4, "LZ77 Decompression Algorithm Details"), which
 * Windows uses for compressed ETL buffers (COMPRESSION_FORMAT_XPRESS, 3).
 * Both ways: the reader decompresses relogged files, the writer compresses
 * when a session asks for it. Every read and write is bounds-checked.
 */
#ifndef WRITER_ETL_XPRESS_H
#define WRITER_ETL_XPRESS_H

#include <stddef.h>
#include <stdint.h>

#define ETL_XPRESS_FORMAT_LZ77 3u /* COMPRESSION_FORMAT_XPRESS */

/**
 * etl_xpress_decompress - decompress @in into @out until @outlen bytes are
 * produced or the input ends.
 * Return: bytes written (<= @outlen), or -EINVAL when the input is
 * malformed (a match reaching before the output start, a length field cut
 * short, a length out of range).
 */
long etl_xpress_decompress(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen);

/**
 * etl_xpress_compress - compress @inlen bytes at @in into @out (@outcap
 * bytes) as MS-XCA section 2.3 describes: a greedy match finder (one
 * candidate per 3-byte hash, offsets up to 8192), the final flag word
 * padded with 1 bits. Deterministic: the same input gives the same bytes.
 * Return: the compressed length, or -ENOSPC when it does not fit in @outcap
 * (at most @inlen + @inlen / 8 + 8 bytes are ever needed).
 */
long etl_xpress_compress(const uint8_t *in, size_t inlen, uint8_t *out, size_t outcap);

#endif /* WRITER_ETL_XPRESS_H */
