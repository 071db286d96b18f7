package dev.streamfold.ledger.pulsar;

import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.SystemTable;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/** A {@link SystemTable} on a compacted topic {@code persistent://<tenant>/system/<table>}. */
final class PulsarSystemTable implements SystemTable {
  private final PulsarClient client;
  private final String topic;
  private Producer<byte[]> producer;

  PulsarSystemTable(PulsarClient client, String topic) {
    this.client = client;
    this.topic = topic;
  }

  private synchronized Producer<byte[]> producer() throws PulsarClientException {
    if (producer == null || !producer.isConnected()) {
      if (producer != null) {
        producer.closeAsync();
      }
      producer = client.newProducer(Schema.BYTES).topic(topic).enableBatching(false)
          .sendTimeout(30, TimeUnit.SECONDS).create();
    }
    return producer;
  }

  @Override
  public synchronized void put(String key, String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("system table value for '" + key + "' is empty");
    }
    send(key, value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public synchronized void delete(String key) {
    send(key, new byte[0]);
  }

  private void send(String key, byte[] value) {
    try {
      producer().newMessage().key(key).value(value).send();
    } catch (PulsarClientException e) {
      throw new LedgerException.Unavailable("cannot write " + key + " to " + topic, e);
    }
  }

  @Override
  public Map<String, String> readAll() {
    Map<String, String> table = new TreeMap<>();
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(MessageId.earliest).readCompacted(true).create()) {
      while (reader.hasMessageAvailable()) {
        Message<byte[]> message = reader.readNext(30, TimeUnit.SECONDS);
        if (message == null) {
          break;
        }
        if (!message.hasKey()) {
          continue;
        }
        byte[] value = message.getValue();
        if (value == null || value.length == 0) {
          table.remove(message.getKey());
        } else {
          table.put(message.getKey(), new String(value, StandardCharsets.UTF_8));
        }
      }
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot read " + topic, e);
    }
    return table;
  }

  synchronized void close() {
    if (producer != null) {
      producer.closeAsync();
    }
  }
}
