// Transparent huge pages for the heap of `pto`: the compiler's IR is millions of small objects
// reached through indices and pointers, and with 4 KiB pages a big compile spends much of its
// time in TLB misses (docs/ARCHITECTURE.md, "Huge pages for pto").
#pragma once

namespace pto::cli {

// When the system gives huge pages only to memory that asks for them (THP "madvise") and the
// environment does not set glibc's tunables already, re-executes this program with
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864 (glibc's malloc then asks
// for them, and grows the heap 64 MiB at a time). Returns only when
// it does not re-execute (or exec fails, when the run simply goes on with 4 KiB pages).
// PTO_HUGE_PAGES=0 turns it off.
void reexecWithHugePages(char** argv);

} // namespace pto::cli
