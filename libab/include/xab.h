/*
 * xab.h -- monitor a PVM program with xab.
 *
 * Include this after (or instead of) pvm3.h in every C or C++ source that
 * calls PVM, recompile, and link with libab before PVM:
 *
 *   1.  cc -c prog.c $(pkg-config --cflags xab)
 *   2.  cc prog.o -o prog $(pkg-config --libs xab)      # -lab -lgpvm3 -lpvm3
 *   3.  abmon | tee evfile        # then run prog as usual
 *
 * Every pvm_<call>(...) below becomes xab_<call>(...) (xab/ab.h), which makes
 * the real PVM call and records it.  Macros only: no logic lives here.
 * Taking a function's address (&pvm_send) still gives PVM's own function.
 * Define XAB_DISABLE before including to compile the program unmonitored.
 */
#ifndef XAB_H
#define XAB_H

#include <pvm3.h>

#ifndef XAB_DISABLE
#include "xab/ab.h"

#define pvm_initsend(a0) xab_initsend(a0)
#define pvm_mkbuf(a0) xab_mkbuf(a0)
#define pvm_freebuf(a0) xab_freebuf(a0)
#define pvm_getsbuf() xab_getsbuf()
#define pvm_getrbuf() xab_getrbuf()
#define pvm_setsbuf(a0) xab_setsbuf(a0)
#define pvm_setrbuf(a0) xab_setrbuf(a0)
#define pvm_bufinfo(a0, a1, a2, a3) xab_bufinfo(a0, a1, a2, a3)
#define pvm_getminfo(a0, a1) xab_getminfo(a0, a1)
#define pvm_setminfo(a0, a1) xab_setminfo(a0, a1)
#define pvm_pkmesg(a0) xab_pkmesg(a0)
#define pvm_pkmesgbody(a0) xab_pkmesgbody(a0)
#define pvm_upkmesg() xab_upkmesg()
#define pvm_pkbyte(a0, a1, a2) xab_pkbyte(a0, a1, a2)
#define pvm_pkcplx(a0, a1, a2) xab_pkcplx(a0, a1, a2)
#define pvm_pkdcplx(a0, a1, a2) xab_pkdcplx(a0, a1, a2)
#define pvm_pkdouble(a0, a1, a2) xab_pkdouble(a0, a1, a2)
#define pvm_pkfloat(a0, a1, a2) xab_pkfloat(a0, a1, a2)
#define pvm_pkint(a0, a1, a2) xab_pkint(a0, a1, a2)
#define pvm_pklong(a0, a1, a2) xab_pklong(a0, a1, a2)
#define pvm_pkshort(a0, a1, a2) xab_pkshort(a0, a1, a2)
#define pvm_pkuint(a0, a1, a2) xab_pkuint(a0, a1, a2)
#define pvm_pkulong(a0, a1, a2) xab_pkulong(a0, a1, a2)
#define pvm_pkushort(a0, a1, a2) xab_pkushort(a0, a1, a2)
#define pvm_pkstr(a0) xab_pkstr(a0)
#define pvm_upkbyte(a0, a1, a2) xab_upkbyte(a0, a1, a2)
#define pvm_upkcplx(a0, a1, a2) xab_upkcplx(a0, a1, a2)
#define pvm_upkdcplx(a0, a1, a2) xab_upkdcplx(a0, a1, a2)
#define pvm_upkdouble(a0, a1, a2) xab_upkdouble(a0, a1, a2)
#define pvm_upkfloat(a0, a1, a2) xab_upkfloat(a0, a1, a2)
#define pvm_upkint(a0, a1, a2) xab_upkint(a0, a1, a2)
#define pvm_upklong(a0, a1, a2) xab_upklong(a0, a1, a2)
#define pvm_upkshort(a0, a1, a2) xab_upkshort(a0, a1, a2)
#define pvm_upkuint(a0, a1, a2) xab_upkuint(a0, a1, a2)
#define pvm_upkulong(a0, a1, a2) xab_upkulong(a0, a1, a2)
#define pvm_upkushort(a0, a1, a2) xab_upkushort(a0, a1, a2)
#define pvm_upkstr(a0) xab_upkstr(a0)
#define pvm_send(a0, a1) xab_send(a0, a1)
#define pvm_mcast(a0, a1, a2) xab_mcast(a0, a1, a2)
#define pvm_psend(a0, a1, a2, a3, a4) xab_psend(a0, a1, a2, a3, a4)
#define pvm_recv(a0, a1) xab_recv(a0, a1)
#define pvm_nrecv(a0, a1) xab_nrecv(a0, a1)
#define pvm_trecv(a0, a1, a2) xab_trecv(a0, a1, a2)
#define pvm_probe(a0, a1) xab_probe(a0, a1)
#define pvm_precv(a0, a1, a2, a3, a4, a5, a6, a7) xab_precv(a0, a1, a2, a3, a4, a5, a6, a7)
#define pvm_recvf(a0) xab_recvf(a0)
#define pvm_joingroup(a0) xab_joingroup(a0)
#define pvm_lvgroup(a0) xab_lvgroup(a0)
#define pvm_barrier(a0, a1) xab_barrier(a0, a1)
#define pvm_bcast(a0, a1) xab_bcast(a0, a1)
#define pvm_reduce(a0, a1, a2, a3, a4, a5, a6) xab_reduce(a0, a1, a2, a3, a4, a5, a6)
#define pvm_gather(a0, a1, a2, a3, a4, a5, a6) xab_gather(a0, a1, a2, a3, a4, a5, a6)
#define pvm_scatter(a0, a1, a2, a3, a4, a5, a6) xab_scatter(a0, a1, a2, a3, a4, a5, a6)
#define pvm_gsize(a0) xab_gsize(a0)
#define pvm_getinst(a0, a1) xab_getinst(a0, a1)
#define pvm_gettid(a0, a1) xab_gettid(a0, a1)
#define pvm_freezegroup(a0, a1) xab_freezegroup(a0, a1)
#define pvm_mytid() xab_mytid()
#define pvm_parent() xab_parent()
#define pvm_spawn(a0, a1, a2, a3, a4, a5) xab_spawn(a0, a1, a2, a3, a4, a5)
#define pvm_kill(a0) xab_kill(a0)
#define pvm_exit() xab_exit()
#define pvm_notify(a0, a1, a2, a3) xab_notify(a0, a1, a2, a3)
#define pvm_addhosts(a0, a1, a2) xab_addhosts(a0, a1, a2)
#define pvm_delhosts(a0, a1, a2) xab_delhosts(a0, a1, a2)
#define pvm_config(a0, a1, a2) xab_config(a0, a1, a2)
#define pvm_tasks(a0, a1, a2) xab_tasks(a0, a1, a2)
#define pvm_pstat(a0) xab_pstat(a0)
#define pvm_mstat(a0) xab_mstat(a0)
#define pvm_sendsig(a0, a1) xab_sendsig(a0, a1)
#define pvm_halt() xab_halt()
#define pvm_siblings(a0) xab_siblings(a0)
#define pvm_tidtohost(a0) xab_tidtohost(a0)
#define pvm_archcode(a0) xab_archcode(a0)
#define pvm_getopt(a0) xab_getopt(a0)
#define pvm_setopt(a0, a1) xab_setopt(a0, a1)
#define pvm_getfds(a0) xab_getfds(a0)
#define pvm_catchout(a0) xab_catchout(a0)
#define pvm_perror(a0) xab_perror(a0)
#define pvm_hostsync(a0, a1, a2) xab_hostsync(a0, a1, a2)
#define pvm_tickle(a0, a1, a2, a3) xab_tickle(a0, a1, a2, a3)
#define pvm_getnoresets(a0, a1) xab_getnoresets(a0, a1)
#define pvm_start_pvmd(a0, a1, a2) xab_start_pvmd(a0, a1, a2)
#define pvm_export(a0) xab_export(a0)
#define pvm_unexport(a0) xab_unexport(a0)
#define pvm_version() xab_version()
#define pvm_putinfo(a0, a1, a2) xab_putinfo(a0, a1, a2)
#define pvm_recvinfo(a0, a1, a2) xab_recvinfo(a0, a1, a2)
#define pvm_delinfo(a0, a1, a2) xab_delinfo(a0, a1, a2)
#define pvm_getmboxinfo(a0, a1, a2) xab_getmboxinfo(a0, a1, a2)
#define pvm_insert(a0, a1, a2) xab_insert(a0, a1, a2)
#define pvm_lookup(a0, a1, a2) xab_lookup(a0, a1, a2)
#define pvm_delete(a0, a1) xab_delete(a0, a1)
#define pvm_newcontext() xab_newcontext()
#define pvm_setcontext(a0) xab_setcontext(a0)
#define pvm_freecontext(a0) xab_freecontext(a0)
#define pvm_getcontext() xab_getcontext()
#define pvm_addmhf(a0, a1, a2, a3) xab_addmhf(a0, a1, a2, a3)
#define pvm_delmhf(a0) xab_delmhf(a0)
#define pvmdisplaymhfinfo(a0, a1, a2) xab_displaymhfinfo(a0, a1, a2)
#define pvm_reg_hoster() xab_reg_hoster()
#define pvm_reg_rm(a0) xab_reg_rm(a0)
#define pvm_reg_tasker() xab_reg_tasker()
#define pvm_reg_tracer(a0, a1, a2, a3, a4, a5, a6) xab_reg_tracer(a0, a1, a2, a3, a4, a5, a6)

/* Variadic: call PVM's own, then record.  The format is evaluated twice, so
 * pass an expression without side effects (as every real program does). */
#define pvm_packf(...) xab_packf_done(pvm_packf(__VA_ARGS__), XAB_FIRST_ARG_(__VA_ARGS__, 0))
#define pvm_unpackf(...) xab_unpackf_done(pvm_unpackf(__VA_ARGS__), XAB_FIRST_ARG_(__VA_ARGS__, 0))
#define XAB_FIRST_ARG_(first, ...) (first)

#else /* XAB_DISABLE */
#define xab_mark(text) ((void)0)
#define xab_flush() ((void)0)
#endif /* XAB_DISABLE */

#endif /* XAB_H */
