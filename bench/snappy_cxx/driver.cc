// Times Google's snappy::RawUncompress on a page dump written by the snappy_pages example
// (bench/examples/snappy_pages.rs): per page, the compressed and decompressed lengths as
// little-endian u32, then the compressed bytes. Every page is decompressed into one reused
// output buffer, written once before timing; prints GB/s of output from the sum over pages of
// each page's fastest time in RUNS runs. Built by build.sh.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "snappy.h"

struct Page {
  size_t start, len, out_len;
};

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PAGES_FILE RUNS\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Page> pages;
  size_t at = 0, largest = 0, total = 0;
  while (at + 8 <= data.size()) {
    uint32_t len, out_len;
    std::memcpy(&len, data.data() + at, 4);
    std::memcpy(&out_len, data.data() + at + 4, 4);
    at += 8;
    if (at + len > data.size()) {
      std::fprintf(stderr, "truncated dump\n");
      return 1;
    }
    pages.push_back({at, len, out_len});
    at += len;
    largest = out_len > largest ? out_len : largest;
    total += out_len;
  }
  std::vector<char> out(largest + 64, 1);
  int runs = std::atoi(argv[2]);
  std::vector<double> best(pages.size(), 1e30);
  for (int r = 0; r < runs + 1; r++) {
    for (size_t i = 0; i < pages.size(); i++) {
      const Page& p = pages[i];
      auto start = std::chrono::steady_clock::now();
      if (!snappy::RawUncompress(data.data() + p.start, p.len, out.data())) {
        std::fprintf(stderr, "RawUncompress failed\n");
        return 1;
      }
      asm volatile("" : : "r"(out.data()) : "memory");
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (r > 0 && secs < best[i]) best[i] = secs;  // run 0 warms up
    }
  }
  double sum = 0;
  for (double b : best) sum += b;
  std::printf("%.3f\n", total / sum / 1e9);
  return 0;
}
