/* SPDX-License-Identifier: MIT */
/*
 * tests/ident_fixture.h - a small ETL file with what no public Windows
 * sample has together: Process and Thread rundown, plain CSwitch records,
 * ReadyThread and SampledProfile, on two CPUs (ident_fixture.c). Its
 * contents are listed there and typed into the tests that read it.
 */
#ifndef TESTS_IDENT_FIXTURE_H
#define TESTS_IDENT_FIXTURE_H

/** ident_fixture_write - write the file to @path. Return: 0, or -1. */
int ident_fixture_write(const char *path);

/**
 * ident_fixture_write_pingpong - a file of @rounds wake-ups of one thread
 * by another (listed in ident_fixture.c). Return: 0, or -1.
 */
int ident_fixture_write_pingpong(const char *path, unsigned rounds);

/** ident_fixture_write_reuse - a TID reused by another process (ident_fixture.c). */
int ident_fixture_write_reuse(const char *path);

#endif
