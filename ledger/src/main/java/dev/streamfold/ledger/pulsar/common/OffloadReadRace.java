package dev.streamfold.ledger.pulsar.common;

/**
 * Retries a call to the broker that reads an entry of an offloaded segment and lost Pulsar's race with the
 * segment's read handle being closed: the broker's last message ID (admin, or a reader's
 * {@code hasMessageAvailable}), for which the broker reads the last entry.
 *
 * <p>A managed ledger caches one read handle per segment. Its trimmer (each retention check, and after a
 * topic load or a segment rollover) closes the cached handles of segments no reader is positioned in
 * ({@code ManagedLedgerImpl.releaseReadHandleIfNoLongerRead}, Pulsar 4.0). An admin read holds no cursor,
 * so a read that took the cached handle of an offloaded segment just before the trimmer closed it fails with
 * {@code OffloadReadHandleClosedException} ("Offload read handle already closed"), answered as HTTP 500
 * (admin) or as an error naming it (binary protocol). A topic unload closes every cached handle too.
 * The next attempt opens a fresh handle. Cursor reads need none of this: the broker's dispatcher retries a
 * failed read itself. Seen in CI on {@code getLastMessageId} right after a broker restart, when loading the
 * topic had just opened the handle of the last offloaded segment.
 */
public final class OffloadReadRace {

  /** Pulsar's {@code ManagedLedgerException.OffloadReadHandleClosedException} message. */
  static final String CLOSED_HANDLE_MESSAGE = "Offload read handle already closed";

  /** Attempts in all, the first included; the waits between them double from {@link #FIRST_WAIT_MS}. */
  static final int ATTEMPTS = 5;

  /** The wait before the second attempt, in ms (then 100, 200, 400: 750 ms at most in all). */
  static final long FIRST_WAIT_MS = 50;

  /** One call to the broker, failing with {@code E}. */
  @FunctionalInterface
  public interface BrokerCall<T, E extends Exception> {
    T call() throws E;
  }

  private OffloadReadRace() {
  }

  /**
   * Runs {@code call}, again after a short wait each time it fails with a closed offload read handle, up to
   * {@link #ATTEMPTS} attempts.
   *
   * @return what the call returns
   * @throws E any other failure at once; the closed-handle failure of the last attempt, with the first
   *     one suppressed
   * @throws InterruptedException if interrupted while waiting between attempts (the interrupt flag is kept
   *     clear, as by {@link Thread#sleep})
   */
  @SuppressWarnings("unchecked") // only E is checked: call() throws E or an unchecked exception
  public static <T, E extends Exception> T call(BrokerCall<T, E> call) throws E, InterruptedException {
    Exception first = null;
    long waitMs = FIRST_WAIT_MS;
    for (int attempt = 1; ; attempt++) {
      try {
        return call.call();
      } catch (Exception e) {
        if (!isClosedHandle(e) || attempt == ATTEMPTS) {
          if (first != null && first != e) {
            e.addSuppressed(first);
          }
          throw (E) e;
        }
        if (first == null) {
          first = e;
        }
      }
      Thread.sleep(waitMs);
      waitMs *= 2;
    }
  }

  /** Whether {@code e} or a cause names Pulsar's closed offload read handle. */
  static boolean isClosedHandle(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains(CLOSED_HANDLE_MESSAGE)) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
