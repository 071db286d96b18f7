package dev.streamfold.views;

/**
 * The view store failed: Redis could not be reached, timed out, or refused a command. The root of the
 * exceptions that the views module throws for Redis; the message is the Redis client's (see {@link
 * ViewStore#describeRedisFailure} for the text a user is shown) and the cause is the Redis client's exception.
 */
public class ViewStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * A failure of the view store.
   *
   * @param message what failed, as the Redis client said it (may be null)
   * @param cause the Redis client's exception, or what else made the store fail
   */
  public ViewStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
