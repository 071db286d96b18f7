package dev.streamfold.transforms;

import java.util.List;

/**
 * The transformations as served: what replays, rollbacks and training sets read. A transformation's served
 * definition is the version readers see, an update's once its job has swapped it in.
 */
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

  /**
   * Whether a transformation of that name exists (served, or being built before its first version is LIVE).
   *
   * @param tenant tenant name
   * @param name the transformation (and view) name
   */
  boolean exists(String tenant, String name);

  /**
   * The names of a tenant's transformations.
   *
   * @param tenant tenant name
   * @return the names, in the catalog's order
   */
  List<String> names(String tenant);
}
