/*
 * xab/ab.h -- libab's plain C ABI.
 *
 * One xab_<call> for every pvm_<call> of PVM 3.4.6's pvm3.h, same arguments,
 * same result: it makes the real call and records one event (two for a call
 * that can block).  C and C++ programs reach these through the macros of
 * xab.h; libf2x (Fortran) calls them directly.  A few functions of xab's own
 * follow at the end.
 *
 * libab is not thread-safe, exactly like libpvm3: call it from one thread.
 */
#ifndef XAB_AB_H
#define XAB_AB_H

#include <stdio.h>
#include <sys/time.h>
#include <pvm3.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*xab_match_fn)(int, int, int);
typedef void (*xab_reduce_fn)(int *, void *, void *, int *, int *);

/* message buffers */
int xab_initsend(int enc);
int xab_mkbuf(int enc);
int xab_freebuf(int mid);
int xab_getsbuf(void);
int xab_getrbuf(void);
int xab_setsbuf(int mid);
int xab_setrbuf(int mid);
int xab_bufinfo(int mid, int *bytes, int *tag, int *tid);
int xab_getminfo(int mid, struct pvmminfo *info);
int xab_setminfo(int mid, struct pvmminfo *info);
int xab_pkmesg(int mid);
int xab_pkmesgbody(int mid);
int xab_upkmesg(void);

/* packing */
int xab_pkbyte(char *p, int n, int s);
int xab_pkcplx(float *p, int n, int s);
int xab_pkdcplx(double *p, int n, int s);
int xab_pkdouble(double *p, int n, int s);
int xab_pkfloat(float *p, int n, int s);
int xab_pkint(int *p, int n, int s);
int xab_pklong(long *p, int n, int s);
int xab_pkshort(short *p, int n, int s);
int xab_pkuint(unsigned int *p, int n, int s);
int xab_pkulong(unsigned long *p, int n, int s);
int xab_pkushort(unsigned short *p, int n, int s);
int xab_pkstr(char *s);
int xab_upkbyte(char *p, int n, int s);
int xab_upkcplx(float *p, int n, int s);
int xab_upkdcplx(double *p, int n, int s);
int xab_upkdouble(double *p, int n, int s);
int xab_upkfloat(float *p, int n, int s);
int xab_upkint(int *p, int n, int s);
int xab_upklong(long *p, int n, int s);
int xab_upkshort(short *p, int n, int s);
int xab_upkuint(unsigned int *p, int n, int s);
int xab_upkulong(unsigned long *p, int n, int s);
int xab_upkushort(unsigned short *p, int n, int s);
int xab_upkstr(char *s);
/* pvm_packf/pvm_unpackf are variadic and PVM has no va_list form, so xab.h
 * calls the real one and then this, which records the call. */
int xab_packf_done(int rc, const char *fmt);
int xab_unpackf_done(int rc, const char *fmt);

/* sending and receiving */
int xab_send(int tid, int tag);
int xab_mcast(int *tids, int n, int tag);
int xab_psend(int tid, int tag, void *p, int n, int type);
int xab_recv(int tid, int tag);
int xab_nrecv(int tid, int tag);
int xab_trecv(int tid, int tag, struct timeval *tmout);
int xab_probe(int tid, int tag);
int xab_precv(int tid, int tag, void *p, int n, int type, int *rtid, int *rtag, int *rlen);
xab_match_fn xab_recvf(xab_match_fn fn);

/* groups and collectives */
int xab_joingroup(char *group);
int xab_lvgroup(char *group);
int xab_barrier(char *group, int count);
int xab_bcast(char *group, int tag);
int xab_reduce(xab_reduce_fn fn, void *data, int n, int type, int tag, char *group, int root);
int xab_gather(void *result, void *data, int n, int type, int tag, char *group, int root);
int xab_scatter(void *result, void *data, int n, int type, int tag, char *group, int root);
int xab_gsize(char *group);
int xab_getinst(char *group, int tid);
int xab_gettid(char *group, int inst);
int xab_freezegroup(char *group, int size);

/* task control and the virtual machine */
int xab_mytid(void);
int xab_parent(void);
int xab_spawn(char *file, char **argv, int flags, char *where, int count, int *tids);
int xab_kill(int tid);
int xab_exit(void);
int xab_notify(int what, int tag, int n, int *tids);
int xab_addhosts(char **names, int n, int *infos);
int xab_delhosts(char **names, int n, int *infos);
int xab_config(int *nhost, int *narch, struct pvmhostinfo **hosts);
int xab_tasks(int where, int *ntask, struct pvmtaskinfo **tasks);
int xab_pstat(int tid);
int xab_mstat(char *host);
int xab_sendsig(int tid, int sig);
int xab_halt(void);
int xab_siblings(int **tids);
int xab_tidtohost(int tid);
int xab_archcode(char *arch);
int xab_getopt(int what);
int xab_setopt(int what, int val);
int xab_getfds(int **fds);
int xab_catchout(FILE *f);
int xab_perror(char *msg);
int xab_hostsync(int host, struct timeval *clk, struct timeval *delta);
int xab_tickle(int narg, int *argp, int *nres, int *resp);
int xab_getnoresets(int **tids, int *ntids);
int xab_start_pvmd(int argc, char **argv, int block);
int xab_export(char *name);
int xab_unexport(char *name);
char *xab_version(void);

/* mailbox */
int xab_putinfo(char *name, int mid, int flags);
int xab_recvinfo(char *name, int index, int flags);
int xab_delinfo(char *name, int index, int flags);
int xab_getmboxinfo(char *pattern, int *n, struct pvmmboxinfo **classes);
int xab_insert(char *name, int req, int data);
int xab_lookup(char *name, int req, int *data);
int xab_delete(char *name, int req);

/* contexts, message handlers, registration */
int xab_newcontext(void);
int xab_setcontext(int ctx);
int xab_freecontext(int ctx);
int xab_getcontext(void);
int xab_addmhf(int src, int tag, int ctx, int (*fn)(int));
int xab_delmhf(int mhid);
/* libpvm3's pvmdisplaymhfinfo (not in pvm3.h; PVM's mhf_server calls it). */
void xab_displaymhfinfo(char *who, char *msg, int tid);
int xab_reg_hoster(void);
int xab_reg_rm(struct pvmhostinfo **host);
int xab_reg_tasker(void);
int xab_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt);

/* ---- xab's own ---- */

/* A user mark: shows in the trace as a `mark text=...` record. */
void xab_mark(const char *text);
/* Send what this task has recorded to abmon now. */
void xab_flush(void);
/* Which language the task's calls come from (XAB_LANG_C, XAB_LANG_FORTRAN);
 * libf2x sets it before its first call. */
void xab_set_lang(int lang);

#ifdef __cplusplus
}
#endif

#endif /* XAB_AB_H */
