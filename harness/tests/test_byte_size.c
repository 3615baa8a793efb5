/* Byte sizes: parsing with binary suffixes, overflow refused, printing. */
#include <stdint.h>
#include <string.h>

#include "byte_size.h"
#include "sl_test.h"

static uint64_t parsed(const char *s) {
  uint64_t v = 12345;
  return sl_bytes_parse(s, &v) ? UINT64_MAX : v;
}

int main(void) {
  CHECK(parsed("0") == 0);
  CHECK(parsed("1000000") == 1000000);
  CHECK(parsed("1K") == 1024);
  CHECK(parsed("512M") == 512ull << 20);
  CHECK(parsed("6G") == 6ull << 30);
  CHECK(parsed("6g") == 6ull << 30);
  CHECK(parsed("6GiB") == 6ull << 30);
  CHECK(parsed("6GB") == 6ull << 30);
  CHECK(parsed("2T") == 2ull << 40);
  /* Not sizes: empty, signs, fractions, unknown or doubled units, junk. */
  const char *bad[] = {"",    "-1", "+5",  "1.5G",  "1P",  "1KK",
                       "1 G", "G",  "1Gi", "1GiBx", "0x10"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
    CHECK_MSG(parsed(bad[i]) == UINT64_MAX, "\"%s\" parsed", bad[i]);
  /* 2^64 and more overflow: refused, never wrapped. */
  uint64_t top = 0;
  CHECK(sl_bytes_parse("18446744073709551615", &top) == 0 && top == UINT64_MAX);
  CHECK(sl_bytes_parse("18446744073709551616", &(uint64_t){0}) == -1);
  CHECK(sl_bytes_parse("16777216T", &(uint64_t){0}) == -1);

  char buf[32];
  CHECK(strcmp(sl_bytes_str(0, buf, sizeof buf), "0 B") == 0);
  CHECK(strcmp(sl_bytes_str(1023, buf, sizeof buf), "1023 B") == 0);
  CHECK(strcmp(sl_bytes_str(1536, buf, sizeof buf), "1.5 KiB") == 0);
  CHECK(strcmp(sl_bytes_str(6ull << 30, buf, sizeof buf), "6.0 GiB") == 0);
  CHECK(strcmp(sl_bytes_str(3ull << 40, buf, sizeof buf), "3.0 TiB") == 0);
  CHECK(sl_case_bytes_cap(12345) == 12345);
  CHECK(sl_case_bytes_cap(0) > 0 &&
        sl_case_bytes_cap(0) == sl_case_bytes_cap(0));
  return sl_test_finish("test_byte_size");
}
