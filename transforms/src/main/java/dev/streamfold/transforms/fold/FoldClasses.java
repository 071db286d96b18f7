package dev.streamfold.transforms.fold;

import dev.streamfold.transforms.TransformException;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.CompositeType;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.api.java.typeutils.MapTypeInfo;
import org.apache.flink.api.java.typeutils.ObjectArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.BasicArrayTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Loads and checks {@link Transformation} classes: at creation from the uploaded jar (nothing starts
 * unless the class passes), and in the job from Flink's user-code class loader.
 */
public final class FoldClasses {
  private FoldClasses() {}

  /**
   * What a Java transformation declares.
   *
   * @param className the class
   * @param keyColumn the key column
   * @param columns the other columns, in order
   * @param stateType the state type as Flink describes it
   */
  public record Shape(String className, String keyColumn, List<Column> columns, String stateType) {
    /** The view's columns: the key column (STRING), then the others; name to type. */
    public LinkedHashMap<String, String> viewColumns() {
      LinkedHashMap<String, String> all = new LinkedHashMap<>();
      all.put(keyColumn, "STRING");
      columns.forEach(c -> all.put(c.name(), c.type()));
      return all;
    }
  }

  /**
   * Load a class from a jar and check everything that can be checked before a job runs: it implements
   * {@link Transformation}, has a public no-argument constructor, declares valid columns, returns an
   * initial state, and its state type has a Flink serializer other than Kryo that writes the initial
   * state to the same bytes twice and reads it back to the same bytes.
   *
   * @param jar the jar file
   * @param className the fully qualified class name
   * @return what the class declares
   * @throws TransformException.InvalidFold naming the class and the first problem found
   */
  public static Shape inspect(Path jar, String className) {
    if (className == null || className.isBlank()) {
      throw new TransformException.InvalidFold("no class given: name the Transformation class in the jar (--class)", null);
    }
    if (!Files.isRegularFile(jar)) {
      throw new TransformException.InvalidFold("jar " + jar + " does not exist", null);
    }
    try (java.util.jar.JarFile ignored = new java.util.jar.JarFile(jar.toFile())) {
      // a jar is a zip file: anything else would only show as "class ... is not in the jar"
    } catch (IOException e) {
      // no file name: an uploaded jar is a temporary file on the server, not the name the client gave
      throw new TransformException.InvalidFold("the jar given is not a jar (zip) file: " + e.getMessage(), e);
    }
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
        FoldClasses.class.getClassLoader())) {
      Transformation<Object> fold = instantiate(loader, className);
      String keyColumn;
      List<Column> columns;
      Object initial;
      try {
        keyColumn = fold.keyColumn();
        columns = fold.columns() == null ? List.of() : List.copyOf(fold.columns());
        initial = fold.initial();
      } catch (RuntimeException | LinkageError e) {
        throw new TransformException.InvalidFold(className + " failed while declaring its shape: " + e, e);
      }
      try {
        new Column(keyColumn, "STRING");
      } catch (IllegalArgumentException e) {
        throw new TransformException.InvalidFold(className + ".keyColumn(): " + e.getMessage(), e);
      }
      if (columns.isEmpty()) {
        throw new TransformException.InvalidFold(className + ".columns() declares no column", null);
      }
      Set<String> names = new HashSet<>(Set.of(keyColumn));
      for (Column column : columns) {
        if (column == null || !names.add(column.name())) {
          throw new TransformException.InvalidFold(className + ".columns(): column '" + (column == null ? null
              : column.name()) + "' is " + (column == null ? "null" : "declared twice (or is the key column)"), null);
        }
      }
      if (initial == null) {
        throw new TransformException.InvalidFold(className + ".initial() returned null; it must return a new state", null);
      }
      TypeInformation<Object> type = stateType(fold);
      if (!type.getTypeClass().isInstance(initial)) {
        throw new TransformException.InvalidFold(className + ".initial() returned a " + initial.getClass().getName()
            + ", not a " + type.getTypeClass().getName() + " (stateClass())", null);
      }
      checkRoundTrip(className, type, initial);
      return new Shape(className, keyColumn, columns, type.toString());
    } catch (IOException e) {
      throw new TransformException.InvalidFold("cannot read jar " + jar + ": " + e.getMessage(), e);
    }
  }

  /**
   * Create an instance of a transformation class.
   *
   * @param loader the class loader holding the class
   * @param className the fully qualified class name
   * @return a new instance
   * @throws TransformException.InvalidFold if the class is missing, not a {@link Transformation}, abstract,
   *     or has no public no-argument constructor, or the constructor throws
   */
  @SuppressWarnings("unchecked")
  public static Transformation<Object> instantiate(ClassLoader loader, String className) {
    Class<?> type;
    try {
      type = Class.forName(className, true, loader);
    } catch (ClassNotFoundException e) {
      throw new TransformException.InvalidFold("class " + className + " is not in the jar", e);
    } catch (LinkageError e) {
      throw new TransformException.InvalidFold("class " + className + " cannot be loaded: " + e, e);
    }
    if (!Transformation.class.isAssignableFrom(type)) {
      throw new TransformException.InvalidFold("class " + className + " does not implement "
          + Transformation.class.getName(), null);
    }
    if (Modifier.isAbstract(type.getModifiers()) || !Modifier.isPublic(type.getModifiers())) {
      throw new TransformException.InvalidFold("class " + className + " must be public and not abstract", null);
    }
    try {
      return (Transformation<Object>) type.getConstructor().newInstance();
    } catch (NoSuchMethodException e) {
      throw new TransformException.InvalidFold("class " + className + " has no public no-argument constructor", e);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      Throwable cause = e instanceof java.lang.reflect.InvocationTargetException i ? i.getCause() : e;
      throw new TransformException.InvalidFold("the constructor of " + className + " failed: " + cause, e);
    }
  }

  /**
   * The state type of a transformation, with a serializer that is not Kryo anywhere inside.
   *
   * @param fold the transformation
   * @return the type information Flink serializes states with
   * @throws TransformException.InvalidFold if the type, or a field of it at any depth, would be serialized
   *     with Kryo (the message names the field's type and says what to use instead)
   */
  @SuppressWarnings("unchecked")
  public static TypeInformation<Object> stateType(Transformation<?> fold) {
    String className = fold.getClass().getName();
    Class<?> stateClass;
    try {
      stateClass = fold.stateClass();
    } catch (RuntimeException e) {
      throw new TransformException.InvalidFold(className + ".stateClass() failed: " + e, e);
    }
    if (stateClass == null) {
      throw new TransformException.InvalidFold(className + ".stateClass() returned null", null);
    }
    TypeInformation<Object> type;
    try {
      type = (TypeInformation<Object>) TypeInformation.of(stateClass);
    } catch (RuntimeException e) {
      throw new TransformException.InvalidFold("Flink cannot analyze the state type " + stateClass.getName()
          + " of " + className + ": " + e.getMessage(), e);
    }
    checkNoKryo(className, stateClass.getName(), type);
    return type;
  }

  private static void checkNoKryo(String className, String path, TypeInformation<?> type) {
    if (type instanceof GenericTypeInfo<?>) {
      throw new TransformException.InvalidFold("the state of " + className + " cannot be serialized deterministically: "
          + path + " (" + type.getTypeClass().getName() + ") is not a Flink POJO or basic type, so Flink would use"
          + " Kryo; use a public class with a public no-argument constructor and public fields (or getters and"
          + " setters), boxed primitives, String, or primitive arrays (e.g. long[] instead of List<Long>)", null);
    }
    if (type instanceof CompositeType<?> composite) {
      for (int i = 0; i < composite.getArity(); i++) {
        checkNoKryo(className, path + "." + composite.getFieldNames()[i], composite.getTypeAt(i));
      }
    } else if (type instanceof ObjectArrayTypeInfo<?, ?> array) {
      checkNoKryo(className, path + "[]", array.getComponentInfo());
    } else if (type instanceof BasicArrayTypeInfo<?, ?> array) {
      checkNoKryo(className, path + "[]", array.getComponentInfo());
    } else if (type instanceof ListTypeInfo<?> list) {
      checkNoKryo(className, path + "[]", list.getElementTypeInfo());
    } else if (type instanceof MapTypeInfo<?, ?> map) {
      checkNoKryo(className, path + ".key", map.getKeyTypeInfo());
      checkNoKryo(className, path + ".value", map.getValueTypeInfo());
    }
  }

  private static void checkRoundTrip(String className, TypeInformation<Object> type, Object initial) {
    try {
      TypeSerializer<Object> serializer = type.createSerializer(new SerializerConfigImpl());
      byte[] first = bytes(serializer, initial);
      byte[] second = bytes(serializer, initial);
      Object read = serializer.deserialize(new DataInputDeserializer(first));
      byte[] third = bytes(serializer, read);
      if (!Arrays.equals(first, second) || !Arrays.equals(first, third)) {
        throw new TransformException.InvalidFold("the state of " + className + " (" + type
            + ") does not serialize deterministically: the initial state gave different bytes on a second write"
            + " or after a read", null);
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof TransformException) {
        throw (TransformException) e;
      }
      throw new TransformException.InvalidFold("the initial state of " + className + " cannot be serialized with "
          + type + ": " + e, e);
    }
  }

  private static byte[] bytes(TypeSerializer<Object> serializer, Object value) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(value, out);
    return out.getCopyOfBuffer();
  }
}
