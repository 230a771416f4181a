/*
 * Spin model of the lockless ring buffer of include/tracer/ringbuf.h
 * (run by tests/run-model.t).
 *
 * Every inline below is named after the C function of ringbuf.h it models
 * and follows its statements in order: each load, store, add or
 * compare-and-swap of a shared word of struct tr_buf_ctl is one Promela
 * step, so each step maps to one C line.  atomic{} / d_step{} group only
 * (a) one C atomic instruction (add_return, cmpxchg), (b) purely local
 * computation (loop tests, offsets, resets of dead locals) with the one
 * shared access next to it, (c) ghost bookkeeping, assertions and printf,
 * (d) the stores of one C helper into the packet data
 * (trb_packet_begin, trb_packet_end, the event header) and (e) the reads
 * and writes of reader_sbid, which only the reader touches, with the
 * reader's compare-and-swap.  Memory is sequentially consistent: the
 * acquire/release annotations of ringbuf_atomic.h are not modelled.
 *
 * Abstraction
 *   unit      a byte count scaled down: TR_RECORD_ALIGN = ALIGN = 2 units,
 *             packet header HDR = 2 units (a multiple of ALIGN, as
 *             layout.h asserts), a record (event header + payload) is 2 or
 *             3 units, chosen per event, so records of odd length leave the
 *             next one to be aligned (padding before it, trb_try_reserve);
 *             an interrupt may also try a 7-unit record (payload too big:
 *             lost_big).  SB = 8 units, NSB = 2: a sub-buffer holds 1 to 3
 *             records, and both OLD_END (record does not fit: padding
 *             commit) and NEW_END (record fills it exactly) happen.
 *   words     positions and commit counts are 6-bit words (mod 64), every
 *             sum and difference masked like the C code's 64-bit unsigned
 *             arithmetic; commit counts compare modulo commit_mask + 1 =
 *             64 >> nsubbuf_order; the lap tag keeps the remaining lap
 *             bits (2).  START = 48: the free-running counters wrap past
 *             2^6 after the first two packets; trb_init() as in C.
 *   sbid      phys | NOREF (4) | lap tag << 3, NSB + 1 = 3 physical
 *             sub-buffers, the spare first owned by the reader.
 *   data      per physical sub-buffer the header fields the protocol
 *             fills (packet_seq_num, timestamp_begin/end, content_size)
 *             and per aligned record slot the event header (timestamp,
 *             size = record length here) and the payload (the record's
 *             ghost id + 1).  The reader reads a held packet in one step,
 *             then once more and compares (a torn read is caught instead by
 *             the writer-side check below).
 *   clock     one global counter, +1 per b->clock() call.
 *
 * Processes
 *   outer   process-context writer: N_OUT events (reserve, write payload,
 *           commit).  `provided (!irq_active)': it makes no step while an
 *           interrupt runs on its CPU.
 *   irq     up to N_IRQ interrupts on the writer CPU, each at an arbitrary
 *           step of `outer' (or after it): it sets irq_active, then runs
 *           to completion one event, or one lost_big attempt, or the flush
 *           timer's trb_flush().  -DCONCURRENT_WRITERS drops the nesting
 *           rule: a second writer thread on another CPU (user space, where
 *           several threads share one buffer).
 *   timer   NFLUSH trb_flush() calls concurrent with everything (a flush
 *           from another CPU, -DNFLUSH=1), then, once both writers are
 *           done, the final trb_flush() (tracing stopped).
 *   reader  another CPU: trb_get_subbuf / read twice / trb_put_subbuf in a
 *           loop, truly concurrent, every shared access one step; after
 *           the final flush it drains until -EAGAIN and checks the counts.
 *
 * Checked (assertions; A* are the model's names, I* ringbuf.h's)
 *   A1 (I3, I6, I8)  no writer stores into the physical sub-buffer the
 *                reader holds (WRITES); a held packet carries the
 *                packet_seq_num of its position and holds a record; each
 *                record in it is committed and was reserved at exactly that
 *                position in this lap (no hole, no unwritten, half-written
 *                or stale record); its bytes are unchanged when read again.
 *   A2 (I4, I6)  packets are read in position order and records in
 *                reservation order, each at most once (ids strictly grow).
 *   A3 (I2)      timestamps never decrease in read order, and
 *                timestamp_begin <= records <= timestamp_end <= the next
 *                read packet's timestamp_begin.
 *   A4 (I7)      the records found in a packet = records[phys].unread.
 *   A5 (I5, I7)  after the final flush and drain: attempted = recorded +
 *                lost_full + lost_wrap + lost_big; discard: read = recorded
 *                and records_overrun = 0 (every record read exactly once,
 *                none overwritten); overwrite: read + records_overrun =
 *                recorded.
 *   A6 (I1, I5)  discard: write_count <= consumed + BUF after each
 *                reservation; overwrite: once trb_push_reader(pos) returns,
 *                consumed is past the sub-buffer pos enters, one lap back
 *                ("consumed is never in or before a sub-buffer some writer
 *                has entered for a later lap").
 *   Invalid end states (a process blocked forever) are errors too.
 *
 * Build flags
 *   -DMODE_OVERWRITE            overwrite mode (default: discard)
 *   -DN_OUT=n -DN_IRQ=n -DNFLUSH=n   workload (defaults 4, 1, 0)
 *   -DCONCURRENT_WRITERS        see irq above
 *   -DBUG_NO_WRAP_CHECK         broken: trb_may_enter skips Eq. 3 (K42)
 *   -DBUG_READER_IGNORES_NOREF  broken: trb_get_subbuf swaps whatever
 *                               sbid[idx] holds, without NOREF / lap tag
 *   -DBUG_DELIVER_NO_UNIQUE     broken: trb_commit_bytes adds, then reads
 *                               cc again to decide delivery
 *   -DBUG_PUSH_ONE_STEP         broken: the earlier trb_push_reader, which
 *                               moved consumed one sub-buffer per call
 *   -DNO_PUSH_CHECK             leave A6's overwrite half out (then A5
 *                               shows what BUG_PUSH_ONE_STEP costs)
 *   -DREACH_WRAP, -DREACH_READ2, -DREACH_LOST_WRAP, -DREACH_OVERRUN,
 *   -DREACH_NESTED_SWITCH, -DREACH_PADDING
 *                               probes: the search must reach the state
 *                               and fail there (a writer enters a
 *                               sub-buffer in its second lap; the reader
 *                               reads a second-lap packet; Eq. 3 refuses a
 *                               writer; records are overwritten; an
 *                               interrupt delivers a sub-buffer while the
 *                               outer writer is in the middle of an event;
 *                               a record commits alignment padding).
 *
 * Trails print "MSG:" lines (spin -t): reservations, pushes, takes,
 * deliveries, gets and puts.
 */

/* ---- geometry ----------------------------------------------------------- */
#define NSBO	1			/* nsubbuf_order */
#define NSB	2
#define SBO	3			/* subbuf_order */
#define SB	8
#define BUFO	4			/* subbuf_order + nsubbuf_order */
#define BUF	16
#define HDR	2			/* sizeof(struct tr_packet_header) */
#define ALIGN	2			/* TR_RECORD_ALIGN */
#define MAXREC	(SB - HDR)		/* header + trb_max_payload() */
#define BIGREC	(MAXREC + 1)
#define WMASK	63			/* 6-bit words */
#define HALF	32			/* (__s64)(a - b) < 0  <=>  DIFF(a, b) >= HALF */
#define CMASK	(WMASK >> NSBO)		/* commit_mask */
#define LAPMASK	(WMASK >> BUFO)		/* TR_SBID_LAP_MASK: all lap bits */
#ifndef START
#define START	48			/* cfg->start, a multiple of SB */
#endif

/* ---- workload ----------------------------------------------------------- */
#ifndef N_OUT
#define N_OUT	4			/* outer writer's events */
#endif
#ifndef N_IRQ
#define N_IRQ	1			/* interrupts: one event or flush each */
#endif
#ifndef NFLUSH
#define NFLUSH	0			/* concurrent flushes (plus the final one) */
#endif
#define NREC	(N_OUT + N_IRQ)

/* ---- sbid words (layout.h) ---------------------------------------------- */
#define PHYS_MASK	3		/* TR_SBID_INDEX_MASK */
#define NOREF		4		/* TR_SBID_NOREF */
#define LAP_SHIFT	3		/* TR_SBID_LAP_SHIFT */

/* ---- switches and errors ------------------------------------------------ */
#define OLD_END		1		/* TRB_SWITCH_OLD_END */
#define NEW_START	2		/* TRB_SWITCH_NEW_START */
#define NEW_END		4		/* TRB_SWITCH_NEW_END */
#define EAGAIN		1
#define EIO		2
#define ENOBUFS		3
#define ENOSPC		4

/* ---- positions (ringbuf.h "Positions") ---------------------------------- */
#define DIFF(a, b)	(((a) - (b)) & WMASK)		/* unsigned a - b */
#define trb_sb_offset(p)	((p) & (SB - 1))
#define trb_sb_trunc(p)		((p) & (WMASK - (SB - 1)))
#define trb_sb_next(p)		((trb_sb_trunc(p) + SB) & WMASK)
#define trb_sb_index(p)		(((p) & (BUF - 1)) >> SBO)
#define trb_lap_commit(p)	(((p) & (WMASK - (BUF - 1))) >> NSBO)
#define trb_lap_tag(p)		(((p) >> BUFO) & LAPMASK)
#define trb_sbid_make(ph, tag)	((ph) | NOREF | ((tag) << LAP_SHIFT))
#define trb_sbid_phys(id)	((id) & PHYS_MASK)
#define trb_record_align(p)	(((p) + ALIGN - 1) & (WMASK - (ALIGN - 1)))
#define SEQ(p)			(DIFF(p, START) >> SBO)	/* packet_seq_num */
#define SLOTS			(SB / ALIGN)		/* aligned slots per sub-buffer */
#define AT(ph, off)		((ph) * SLOTS + (off) / ALIGN)

/* ---- struct tr_buf_ctl -------------------------------------------------- */
byte write_count;
byte consumed;
byte reader_sbid;
byte sbid[NSB];
byte cc[NSB];				/* commit[i].cc */
byte cc_sb[NSB];			/* commit[i].cc_sb */
byte rec_committed[NSB + 1];		/* records[p].committed */
byte rec_unread[NSB + 1];		/* records[p].unread */
byte lost_full, lost_wrap, lost_big, records_overrun;

/* ---- physical sub-buffers (data) ---------------------------------------- */
byte h_seq[NSB + 1];			/* packet_seq_num */
byte h_tsb[NSB + 1];			/* timestamp_begin */
byte h_tse[NSB + 1];			/* timestamp_end */
byte h_content[NSB + 1];		/* content_size (units) */
byte e_ts[(NSB + 1) * SLOTS];		/* event header: timestamp */
byte e_size[(NSB + 1) * SLOTS];		/* event header: size (record units) */
byte payload[(NSB + 1) * SLOTS];	/* record id + 1 */

/* ---- environment and ghosts --------------------------------------------- */
byte clock;				/* b->clock(): +1 per call */
bool irq_active;			/* an interrupt runs on the writer CPU */
bool outer_done, irq_done, all_done;
byte attempted;				/* reservations attempted */
byte next_id;				/* = records reserved (ids in position order) */
byte rec_pos[NREC];			/* ghost: position of record id */
bit rec_done[NREC];			/* ghost: record id is committed */
#define GHOST_DONE(rid) \
	if :: (rid) > 0 -> rec_done[((rid) + NREC - 1) % NREC] = 1 :: else fi
byte ghost_held;			/* phys + 1 the reader holds, 0 = none */
byte nread;				/* records read */

/* Every store into a physical sub-buffer goes through this check (A1). */
#define WRITES(ph)	assert(ghost_held != (ph) + 1)

/* Reachability probes: -DREACH_* must make the search fail here. */
bool reach_hit;
#define REACHED(c)	reach_hit = (c); assert(!reach_hit)

/* ==== writer side ======================================================== */

/* Locals every writer context declares (the C function locals). */
#define WRITER_LOCALS \
	byte s_old, s_begin, s_end, s_ts, s_rec, s_size, s_sw, s_phys, s_id; \
	byte err, t, seen, ws_id, pr_cur, cb_idx, cb_cc, dl_phys; \
	byte so_phys, fl_old, fl_ts, fl_did

/* trb_writer_subbuf(b, pos, &phys) */
inline trb_writer_subbuf(pos, phys)
{
	ws_id = sbid[trb_sb_index(pos)];		/* id = trb_read_acquire(entry) */
	do						/* while (id & NOREF) */
	:: atomic { (ws_id & NOREF) ->			/* seen = trb_shared_cmpxchg(entry, id, id & ~NOREF) */
			seen = sbid[trb_sb_index(pos)];
			if
			:: seen == ws_id -> sbid[trb_sb_index(pos)] = ws_id & ~NOREF;
					    ws_id = ws_id & ~NOREF;	/* id &= ~NOREF */
				printf("MSG: %d takes idx %d phys %d (NOREF cleared)\n",
				       _pid, trb_sb_index(pos), trb_sbid_phys(ws_id))
			:: else -> ws_id = seen			/* id = seen */
			fi
		}
	:: atomic { !(ws_id & NOREF) ->
			phys = trb_sbid_phys(ws_id);	/* *phys = trb_sbid_phys(id) */
			ws_id = 0; seen = 0;
			break
		}
	od
}

/* trb_advance_consumed(b, target); cur, sn: the caller's locals */
inline trb_advance_consumed(target, cur, sn)
{
	cur = consumed;					/* cur = trb_read(consumed) */
	do
	:: atomic { DIFF(cur, target) >= HALF ->	/* (__s64)(cur - target) < 0 */
			sn = consumed;			/* seen = trb_shared_cmpxchg(consumed, cur, target) */
			if
			:: sn == cur -> consumed = target;
				printf("MSG: %d advances consumed %d -> %d\n", _pid, cur, target);
				break			/* return */
			:: else -> cur = sn		/* cur = seen */
			fi
		}
	:: DIFF(cur, target) < HALF -> break
	od
}

/* trb_push_reader(b, pos), overwrite mode */
inline trb_push_reader(pos)
{
#ifndef BUG_PUSH_ONE_STEP
	trb_advance_consumed((trb_sb_trunc(pos) - BUF + SB) & WMASK, pr_cur, seen);
#else
	/* the earlier version: one sub-buffer per call */
	pr_cur = consumed;				/* cur = trb_read(consumed) */
	do
	:: atomic { DIFF(trb_sb_trunc(pos), trb_sb_trunc(pr_cur)) >= BUF ->
			seen = consumed;		/* seen = cmpxchg(consumed, cur, next(cur)) */
			if
			:: seen == pr_cur -> consumed = trb_sb_next(pr_cur);
				printf("MSG: %d push consumed %d -> %d\n", _pid, pr_cur, consumed);
				break			/* if (seen == cur) return */
			:: else -> pr_cur = seen	/* cur = seen */
			fi
		}
	:: DIFF(trb_sb_trunc(pos), trb_sb_trunc(pr_cur)) < BUF -> break
	od;
#endif
	atomic {
#ifndef NO_PUSH_CHECK
		/* A6: consumed is past the sub-buffer pos enters, one lap back (I5) */
		assert(DIFF(trb_sb_trunc(pos), trb_sb_trunc(consumed)) < BUF);
#endif
		pr_cur = 0; seen = 0
	}
}

/* trb_deliver(b, idx, pos, cc) */
inline trb_deliver(idx, pos, ccv)
{
	dl_phys = trb_sbid_phys(sbid[idx]);		/* phys = trb_sbid_phys(trb_read(&sbid[idx])) */
	t = rec_unread[dl_phys];			/* trb_read(&rc->unread) */
	records_overrun = records_overrun + t;		/* trb_local_add(&records_overrun, ..) */
	t = rec_committed[dl_phys];			/* trb_read(&rc->committed) */
	rec_unread[dl_phys] = t;			/* trb_write(&rc->unread, ..) */
	rec_committed[dl_phys] = 0;			/* trb_write(&rc->committed, 0) */
	sbid[idx] = trb_sbid_make(dl_phys, trb_lap_tag(pos));	/* trb_write_release(&sbid[idx], ..) */
#ifdef REACH_NESTED_SWITCH
	REACHED(_pid == 2 && outer_in_rsv);	/* an interrupt delivers mid-event */
#endif
	atomic {					/* trb_write_release(&cc_sb, cc) */
		cc_sb[idx] = ccv;
		printf("MSG: %d delivers pos %d (seq %d) idx %d phys %d cc_sb %d\n",
		       _pid, pos, SEQ(pos), idx, dl_phys, ccv);
		dl_phys = 0; t = 0
	}
}

/* trb_commit_bytes(b, pos, bytes); ghost: rid = id + 1 of the record committed, or 0 */
inline trb_commit_bytes(pos, bytes, rid)
{
#ifndef BUG_DELIVER_NO_UNIQUE
	atomic {					/* cc = trb_local_add_return(&cc[idx], bytes) */
		cb_idx = trb_sb_index(pos);		/* idx = trb_sb_index(pos) */
		cc[cb_idx] = (cc[cb_idx] + bytes) & WMASK;
		cb_cc = cc[cb_idx];
		GHOST_DONE(rid)
	}
#else
	atomic {					/* BUG: add ... */
		cb_idx = trb_sb_index(pos);
		cc[cb_idx] = (cc[cb_idx] + bytes) & WMASK;
		GHOST_DONE(rid)
	}
	cb_cc = cc[cb_idx];				/* ... then a separate read */
#endif
	if
	:: (DIFF(cb_cc, SB) & CMASK) == trb_lap_commit(pos) ->
		trb_deliver(cb_idx, pos, cb_cc)
	:: else
	fi
}

/* trb_packet_begin(b, subbuf, pos, ts): the begin fields */
inline trb_packet_begin(ph, pos, ts)
{
	atomic { WRITES(ph); h_tsb[ph] = ts; h_seq[ph] = SEQ(pos) }
}

/* trb_packet_end(b, subbuf, content, ts): the end fields */
inline trb_packet_end(ph, content, ts)
{
	atomic { WRITES(ph); h_tse[ph] = ts; h_content[ph] = content }
}

/* trb_switch_old_end(b, old, ts) */
inline trb_switch_old_end(old, ts)
{
	/* content = trb_sb_offset(old) */
	trb_writer_subbuf(old, so_phys);
	trb_packet_end(so_phys, trb_sb_offset(old), ts);
	trb_commit_bytes(old, SB - trb_sb_offset(old), 0)
}

/* trb_may_enter(b, sb, old): sets err */
inline trb_may_enter(sb, old)
{
	t = cc_sb[trb_sb_index(sb)];			/* cc_sb = trb_read_acquire(..) */
	if
	:: atomic { write_count != old -> err = EAGAIN; t = 0 }	/* write_count moved */
	:: else ->
#ifndef BUG_NO_WRAP_CHECK
		if
		:: (t & CMASK) != trb_lap_commit(sb) ->	/* Eq. 3: lap not delivered */
#ifdef REACH_LOST_WRAP
			REACHED(true);
#endif
			atomic {			/* trb_local_add(&lost_wrap, 1) */
				lost_wrap++;
				printf("MSG: %d lost_wrap entering %d\n", _pid, sb)
			}
			atomic { err = EIO; t = 0 }
		:: else ->
			t = 0;
#endif
#ifndef MODE_OVERWRITE
			if
			:: DIFF(sb, trb_sb_trunc(consumed)) >= BUF ->	/* Eq. 1, discard */
				atomic {		/* trb_local_add(&lost_full, 1) */
					lost_full++;
					printf("MSG: %d lost_full entering %d\n", _pid, sb)
				}
				err = ENOBUFS
			:: else -> err = 0
			fi
#else
			err = 0
#endif
#ifndef BUG_NO_WRAP_CHECK
		fi
#endif
	fi
}

/* trb_try_reserve(b, s, record): sets err; record = s_rec */
inline trb_try_reserve()
{
	s_old = write_count;				/* s->old = trb_read(&write_count) */
	atomic {
		s_ts = clock; clock++;			/* s->ts = b->clock() */
		s_begin = trb_record_align(s_old);
		s_sw = 0;
		if
		:: trb_sb_offset(s_old) == 0 -> s_sw = NEW_START
		:: else ->
			if
			:: DIFF(s_begin, trb_sb_trunc(s_old)) + s_rec > SB ->
				s_sw = OLD_END | NEW_START;
				s_begin = trb_sb_next(s_old)
			:: else
			fi
		fi;
		err = 0
	}
	if
	:: (s_sw & NEW_START) -> trb_may_enter(s_begin, s_old)
	:: else
	fi;
	d_step {
		if
		:: err == 0 && (s_sw & NEW_START) -> s_begin = (s_begin + HDR) & WMASK
		:: else
		fi;
		if
		:: err == 0 ->
			s_end = (s_begin + s_rec) & WMASK;
			/* bytes this record commits: padding and record */
			if
			:: s_sw != 0 -> s_size = DIFF(s_end, s_begin)
			:: else -> s_size = DIFF(s_end, s_old)
			fi;
			if
			:: trb_sb_offset(s_end) == 0 -> s_sw = s_sw | NEW_END
			:: else
			fi
		:: else
		fi
	}
}

/* trb_reserve(b, s, id, payload): sets err; on success s_phys, s_begin .. */
inline trb_reserve()
{
	if
	:: s_rec > MAXREC ->				/* payload_size > trb_max_payload */
		lost_big++;				/* trb_local_add(&lost_big, 1) */
		err = ENOSPC
	:: else ->
		do
		:: trb_try_reserve();
			if
			:: err == EAGAIN			/* continue */
			:: err != 0 && err != EAGAIN -> break	/* return err */
			:: atomic { err == 0 ->			/* trb_local_cmpxchg(&write_count, old, end) */
					if
					:: write_count == s_old ->
						write_count = s_end;
						s_id = next_id;	/* ghost: ids in position order */
						rec_pos[s_id] = s_begin;
						next_id++;
						printf("MSG: %d reserves [%d,%d) sw %d id %d ts %d\n",
						       _pid, s_begin, s_end, s_sw, s_id, s_ts);
#ifdef REACH_WRAP
						/* a writer enters a sub-buffer the second time */
						REACHED((s_sw & NEW_START) && SEQ(s_begin) >= NSB);
#endif
#ifdef REACH_PADDING
						REACHED(s_size > s_rec);
#endif
#ifndef MODE_OVERWRITE
						/* A6 (I1): write_count <= consumed + BUF */
						assert(DIFF(write_count, consumed) <= BUF);
#endif
						break		/* == s->old: reserved */
					:: else
					fi
				}
			fi
		od;
		if
		:: err == 0 ->
#ifdef MODE_OVERWRITE
			if
			:: (s_sw & NEW_START) -> trb_push_reader(s_begin)
			:: else
			fi;
#endif
			trb_writer_subbuf(s_begin, s_phys);
			if
			:: (s_sw & OLD_END) -> trb_switch_old_end(s_old, s_ts)
			:: else
			fi;
			if
			:: (s_sw & NEW_START) ->	/* sb = trb_sb_trunc(s->begin) */
				trb_packet_begin(s_phys, trb_sb_trunc(s_begin), s_ts);
				trb_commit_bytes(trb_sb_trunc(s_begin), HDR, 0)
			:: else
			fi;
			if
			:: (s_sw & NEW_END) -> trb_packet_end(s_phys, SB, s_ts)
			:: else
			fi;
			atomic {			/* eh->timestamp, eh->id, eh->size */
				WRITES(s_phys);
				e_ts[AT(s_phys, trb_sb_offset(s_begin))] = s_ts;
				e_size[AT(s_phys, trb_sb_offset(s_begin))] = s_rec
			}
		:: else
		fi
	fi
}

/* trb_commit(b, s) */
inline trb_commit()
{
	rec_committed[s_phys]++;			/* trb_local_add(&committed, 1) */
	trb_commit_bytes((s_end - 1) & WMASK, s_size, s_id + 1)
}

/* One event: reserve, write the payload (trb_payload), commit. */
inline write_event()
{
	trb_reserve();
	if
	:: atomic { err == 0 -> WRITES(s_phys); payload[AT(s_phys, trb_sb_offset(s_begin))] = s_id + 1 };
		trb_commit()
	:: else
	fi;
	atomic {					/* (dead locals reset) */
		s_old = 0; s_begin = 0; s_end = 0; s_ts = 0; s_rec = 0; s_size = 0;
		s_sw = 0; s_phys = 0; s_id = 0; err = 0;
		cb_idx = 0; cb_cc = 0; so_phys = 0
	}
}

/* trb_flush(b) */
inline trb_flush()
{
	do
	:: fl_old = write_count;			/* old = trb_read(write_count) */
		if
		:: trb_sb_offset(fl_old) == 0 -> break	/* return 0 (fl_did = 0) */
		:: else ->
			atomic { fl_ts = clock; clock++ };	/* ts = b->clock() */
			atomic {			/* trb_local_cmpxchg(write_count, old, next(old)) */
				if
				:: write_count == fl_old ->
					write_count = trb_sb_next(fl_old);
					fl_did = 1;
					printf("MSG: %d flush closes %d at %d ts %d\n", _pid,
					       trb_sb_trunc(fl_old), fl_old, fl_ts);
					break
				:: else
				fi
			}
		fi
	od;
	if
	:: fl_did == 1 -> trb_switch_old_end(fl_old, fl_ts)
	:: else
	fi;
	atomic { fl_old = 0; fl_ts = 0; fl_did = 0; cb_idx = 0; cb_cc = 0; so_phys = 0 }
}

#ifdef REACH_NESTED_SWITCH
bool outer_in_rsv;				/* outer is inside write_event() */
#define OUTER_IN(v)	outer_in_rsv = v
#else
#define OUTER_IN(v)	skip
#endif

#ifdef CONCURRENT_WRITERS
#define OUTER_MAY_RUN	true
#else
#define OUTER_MAY_RUN	(!irq_active)
#endif

proctype outer() provided (OUTER_MAY_RUN)
{
	WRITER_LOCALS;
	byte n;

	do
	:: n < N_OUT ->
		atomic {
			if
			:: s_rec = ALIGN
			:: s_rec = ALIGN + 1
			fi;
			attempted++;
			OUTER_IN(1)
		}
		write_event();
		atomic { OUTER_IN(0); n++ }
	:: else -> break
	od;
	outer_done = 1
}

proctype irq()
{
	WRITER_LOCALS;
	byte n;

	do
	:: n < N_IRQ ->
		atomic {
			irq_active = 1;			/* interrupt entry: outer suspended */
			printf("MSG: interrupt entry\n");
			if
			:: s_rec = ALIGN
			:: s_rec = ALIGN + 1
			:: s_rec = BIGREC		/* too big: lost_big */
			:: s_rec = 0			/* the flush timer instead */
			fi;
			if
			:: s_rec > 0 -> attempted++
			:: else
			fi
		}
		if
		:: s_rec > 0 -> write_event()
		:: else -> trb_flush()
		fi;
		atomic { irq_active = 0; n++; printf("MSG: interrupt return\n") }
	:: break
	od;
	irq_done = 1
}

proctype timer()
{
	WRITER_LOCALS;
	byte n;

	do
	:: n < NFLUSH -> trb_flush(); n++
	:: break
	od;
	outer_done && irq_done;
	trb_flush();					/* final flush: tracing stopped */
	all_done = 1
}

/* ==== reader side ======================================================== */

/* trb_get_subbuf(b, &pos, &packet): sets r_ok (1: got r_pos, 0: -EAGAIN) */
inline trb_get_subbuf()
{
	do
	:: r_cons = consumed;				/* consumed = trb_read_acquire(..) */
		r_ccsb = cc_sb[trb_sb_index(r_cons)];	/* cc_sb = trb_read_acquire(..) */
		if
		:: atomic { (DIFF(r_ccsb, SB) & CMASK) != trb_lap_commit(r_cons) ->
			r_ok = 0; r_cons = 0; r_ccsb = 0; break }	/* Eq. 2 false: -EAGAIN */
		:: else ->
			atomic {		/* id = trb_read_acquire(&sbid[idx]) */
				r_id = sbid[trb_sb_index(r_cons)];
				r_ccsb = 0
			}
			if
#ifndef BUG_READER_IGNORES_NOREF
			:: atomic { !(r_id & NOREF) || (r_id >> LAP_SHIFT) != trb_lap_tag(r_cons) ->
				r_id = 0; r_cons = 0 }		/* continue */
#endif
			:: else ->
				/*
				 * reader_sbid is the reader's alone (no writer
				 * reads or writes it): its read and write are
				 * merged into the compare-and-swap step.
				 */
				atomic {
					r_spare = reader_sbid;	/* spare = trb_read(&reader_sbid) */
					if			/* trb_shared_cmpxchg(&sbid[idx], id, spare) */
					:: sbid[trb_sb_index(r_cons)] == r_id ->
						sbid[trb_sb_index(r_cons)] = r_spare;
						ghost_held = trb_sbid_phys(r_id) + 1;
						reader_sbid = r_id;	/* trb_write(&reader_sbid, id) */
						r_pos = r_cons;
						r_ok = 1;
						printf("MSG: reader gets %d (seq %d) phys %d\n",
						       r_pos, SEQ(r_pos), trb_sbid_phys(r_id));
						r_spare = 0; r_id = 0; r_cons = 0;
						break		/* return 0 */
					:: else -> r_spare = 0; r_id = 0; r_cons = 0	/* continue */
					fi
				}
			fi
		fi
	od
}

/* Read the held packet: check it (A1-A4) and keep a checksum of it. */
inline read_packet()
{
	d_step {
		r_p = trb_sbid_phys(reader_sbid);
		assert(h_seq[r_p] == SEQ(r_pos));		/* A1: the packet at pos */
		assert(h_content[r_p] > HDR && h_content[r_p] <= SB);	/* A1 (I8) */
		assert(h_tsb[r_p] <= h_tse[r_p]);		/* A3 */
		if
		:: r_have ->
			assert(DIFF(r_pos, r_last_pos) > 0 &&
			       DIFF(r_pos, r_last_pos) < HALF);	/* A2: a later packet */
			assert(h_tsb[r_p] >= r_last_tse)	/* A3 */
		:: else
		fi;
		r_off = HDR;
		r_n = 0;
		do
		:: r_off < h_content[r_p] ->
			r_v = payload[AT(r_p, r_off)];
			assert(r_v > 0 && r_v <= next_id);	/* A1: a record */
			assert(e_size[AT(r_p, r_off)] > 0 &&
			       r_off + e_size[AT(r_p, r_off)] <= h_content[r_p]);
			if
			:: r_v == 0 || r_v > next_id || e_size[AT(r_p, r_off)] == 0 ->
				r_off = SB			/* (garbage: stop a replay) */
			:: else ->
				assert(rec_pos[r_v - 1] == ((r_pos + r_off) & WMASK));	/* A1: this lap, here */
				assert(rec_done[r_v - 1]);		/* A1: committed */
				assert(!r_have || r_v - 1 > r_last_id);	/* A2: order, once */
				assert(e_ts[AT(r_p, r_off)] >= r_last_ts &&
				       e_ts[AT(r_p, r_off)] >= h_tsb[r_p] &&
				       e_ts[AT(r_p, r_off)] <= h_tse[r_p]);	/* A3 */
				r_last_id = r_v - 1;
				r_last_ts = e_ts[AT(r_p, r_off)];
				r_have = 1;
				r_n++;
				r_off = trb_record_align(r_off + e_size[AT(r_p, r_off)])
			fi
		:: else -> break
		od;
		assert(r_n == rec_unread[r_p]);			/* A4 (I7) */
		r_sum = h_seq[r_p] + 16 * h_tse[r_p] + 1024 * h_content[r_p] + 64 * h_tsb[r_p];
		r_off = 0;
		do
		:: r_off < SLOTS ->
			r_sum = r_sum * 7 + payload[r_p * SLOTS + r_off] * 3 +
				e_ts[r_p * SLOTS + r_off] * 5 + e_size[r_p * SLOTS + r_off];
			r_off++
		:: else -> break
		od;
		r_have = 1;
		r_last_pos = r_pos;
		r_last_tse = h_tse[r_p]
	}
#ifdef REACH_READ2
	REACHED(SEQ(r_pos) >= NSB);			/* a second-lap packet is read */
#endif
	/* second read of the held packet: nothing changed (A1) */
	d_step {
		r_chk = h_seq[r_p] + 16 * h_tse[r_p] + 1024 * h_content[r_p] + 64 * h_tsb[r_p];
		r_off = 0;
		do
		:: r_off < SLOTS ->
			r_chk = r_chk * 7 + payload[r_p * SLOTS + r_off] * 3 +
				e_ts[r_p * SLOTS + r_off] * 5 + e_size[r_p * SLOTS + r_off];
			r_off++
		:: else -> break
		od;
		assert(r_chk == r_sum);
		nread = nread + r_n;
		r_chk = 0; r_sum = 0; r_off = 0; r_n = 0; r_v = 0; r_p = 0
	}
}

/* trb_put_subbuf(b, pos) */
inline trb_put_subbuf()
{
	atomic {					/* records[phys(reader_sbid)].unread = 0 */
		ghost_held = 0;				/* (reading is finished) */
		rec_unread[trb_sbid_phys(reader_sbid)] = 0
	}
	trb_advance_consumed((r_pos + SB) & WMASK, r_cur, r_seen);
	atomic { r_ok = 0; r_cur = 0; r_seen = 0 }
}

proctype reader()
{
	byte r_ok, r_pos, r_cons, r_ccsb, r_id, r_spare, r_cur, r_seen;
	byte r_p, r_off, r_n, r_v, r_last_id, r_last_ts, r_last_tse, r_last_pos;
	bool r_have;
	int r_sum, r_chk;

	do
	:: all_done -> break
	:: else ->
		trb_get_subbuf();
		if
		:: r_ok == 1 -> read_packet(); trb_put_subbuf()
		:: else
		fi
	od;
	/* drain after the final flush */
	do
	:: trb_get_subbuf();
		if
		:: r_ok == 1 -> read_packet(); trb_put_subbuf()
		:: else -> break
		fi
	od;
	/* A5 (I5, I7) */
	assert(attempted == next_id + lost_full + lost_wrap + lost_big);
#ifndef MODE_OVERWRITE
	assert(records_overrun == 0);
	assert(nread == next_id);
#else
	assert(nread + records_overrun == next_id);
#endif
#ifdef REACH_OVERRUN
	REACHED(records_overrun > 0);
#endif
}

init {
	byte i, first;

	atomic {
		/* trb_init(b, region, cfg) */
		write_count = START;
		consumed = START;
		i = 0;
		do
		:: i < NSB ->
			first = (START + ((i - trb_sb_index(START)) & (NSB - 1)) * SB) & WMASK;
			cc[i] = trb_lap_commit(first) & CMASK;
			cc_sb[i] = cc[i];
			sbid[i] = trb_sbid_make(i, trb_lap_tag((first - BUF) & WMASK));
			i++
		:: else -> break
		od;
		reader_sbid = trb_sbid_make(NSB, 0);
		run outer();
		run irq();
		run timer();
		run reader()
	}
}
