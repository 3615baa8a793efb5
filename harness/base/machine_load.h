/*
 * How busy the machine is before a command starts its work: the share of
 * all CPUs that other processes (and, on a VM, the host's steal) used over
 * a short window, from /proc/stat. main.c reads it to choose how a fuzz
 * campaign's OpenMP threads wait (docs/performance-figures.md, "Campaigns
 * on a busy machine").
 */
#ifndef SL_MACHINE_LOAD_H
#define SL_MACHINE_LOAD_H

/* The busy share in [0, 1] of all CPUs over `seconds`, or -1 where
 * /proc/stat cannot be read. The caller must be idle meanwhile: its own
 * time counts too. */
double sl_machine_busy_share(double seconds);

#endif
