#!/bin/sh
# Builds driver.cc against Google's snappy at SRC (a checkout, e.g. from
# `git clone https://github.com/google/snappy`) with cmake and g++ -O2 into OUT/snappy_driver.
# EXTRA_CXXFLAGS (e.g. -march=native) is added to both.
# usage: bench/snappy_cxx/build.sh SRC OUT
set -eu
SRC=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/build"
cmake -S "$SRC" -B "$OUT/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="${EXTRA_CXXFLAGS:-}" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DSNAPPY_BUILD_TESTS=OFF -DSNAPPY_BUILD_BENCHMARKS=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build "$OUT/build" -j 1 >/dev/null
g++ -O2 ${EXTRA_CXXFLAGS:-} -I"$SRC" -I"$OUT/build" "$HERE/driver.cc" "$OUT/build/libsnappy.a" -o "$OUT/snappy_driver"
echo "$OUT/snappy_driver"
