package dev.streamfold.transforms;

/**
 * The transformations as served: what replays, rollbacks and training sets read. A transformation's served
 * definition is the version readers see, an update's once its job has swapped it in.
 */
@FunctionalInterface
public interface ServedTransforms {

  /**
   * The served definition of a transformation.
   *
   * @param tenant tenant name
   * @param name the transformation (and view) name
   * @return its served definition
   * @throws TransformException.NotFound if it does not exist
   */
  TransformDefinition get(String tenant, String name);
}
