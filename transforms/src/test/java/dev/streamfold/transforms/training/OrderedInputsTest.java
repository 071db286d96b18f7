package dev.streamfold.transforms.training;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.InputSelection;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.junit.jupiter.api.Test;

class OrderedInputsTest {
  private final List<String> calls = new ArrayList<>();

  @SuppressWarnings("unchecked")
  private OrderedInputs.Ordered<Object, Object, Object> ordered() {
    TwoInputStreamOperator<Object, Object, Object> inner = (TwoInputStreamOperator<Object, Object, Object>)
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {TwoInputStreamOperator.class},
            (proxy, method, args) -> {
              calls.add(method.getName() + (args == null ? "" : " " + args[0]));
              return null;
            });
    return new OrderedInputs.Ordered<>(inner);
  }

  @Test
  void readsTheInputWhoseWatermarkIsLowerTheFirstOnATie() throws Exception {
    OrderedInputs.Ordered<Object, Object, Object> join = ordered();
    assertThat(join.nextSelection()).isEqualTo(InputSelection.FIRST);
    join.processWatermark1(new Watermark(5));
    assertThat(join.nextSelection()).isEqualTo(InputSelection.SECOND);
    join.processWatermark2(new Watermark(4));
    assertThat(join.nextSelection()).isEqualTo(InputSelection.SECOND);
    join.processWatermark2(new Watermark(5));
    assertThat(join.nextSelection()).isEqualTo(InputSelection.FIRST);
    join.processWatermark1(new Watermark(3)); // a watermark never goes back
    assertThat(join.nextSelection()).isEqualTo(InputSelection.FIRST);
    join.processWatermark1(new Watermark(9));
    assertThat(join.nextSelection()).isEqualTo(InputSelection.SECOND);
    assertThat(calls).containsExactly("processWatermark1 Watermark @ 5", "processWatermark2 Watermark @ 4",
        "processWatermark2 Watermark @ 5", "processWatermark1 Watermark @ 3", "processWatermark1 Watermark @ 9");
  }

  @Test
  void readsBothOnceEitherHasSeenTheFinalWatermarkOrEnded() throws Exception {
    OrderedInputs.Ordered<Object, Object, Object> join = ordered();
    join.processWatermark1(Watermark.MAX_WATERMARK);
    assertThat(join.nextSelection()).isEqualTo(InputSelection.ALL);
    OrderedInputs.Ordered<Object, Object, Object> other = ordered();
    other.processWatermark1(new Watermark(7));
    other.endInput(2);
    assertThat(other.nextSelection()).isEqualTo(InputSelection.ALL);
  }
}
