package columnar

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The Arrow types of a Parquet file's top-level columns, as arrow-go's
// pqarrow gives them (its schema manifest, which this mirrors so that the
// reader links neither pqarrow nor, through it, Arrow Flight and gRPC): the
// type follows from each leaf's physical and logical type, then from the
// Arrow schema a writer may have stored under ARROW:schema (large strings,
// dictionaries, decimal256, durations, time zones, extension types).

// pqColumn is a top-level column of a Parquet file.
type pqColumn struct {
	leaf  int          // its leaf column index; -1 for a nested column
	field *arrow.Field // its Arrow field
}

// parquetColumns maps every top-level column of a file's schema to its
// Arrow field. An error means pqarrow would not read the file at all.
func parquetColumns(sc *schema.Schema, kv metadata.KeyValueMetadata) ([]pqColumn, error) {
	origin, err := originSchema(kv)
	if err != nil {
		return nil, err
	}
	root := sc.Root()
	if origin != nil && origin.NumFields() != root.NumFields() {
		origin = nil // not the schema of this file
	}
	cols := make([]pqColumn, root.NumFields())
	for i := range cols {
		n := root.Field(i)
		c := &cols[i]
		c.leaf = -1
		var dt arrow.DataType
		if p, ok := n.(*schema.PrimitiveNode); ok && n.RepetitionType() != parquet.Repetitions.Repeated {
			c.leaf = sc.ColumnIndexByNode(p)
			if dt, err = leafArrowType(p.PhysicalType(), p.LogicalType(), p.TypeLength()); err != nil {
				return nil, err
			}
		} else if dt, err = nestedArrowType(n); err != nil {
			return nil, err
		}
		c.field = &arrow.Field{Name: n.Name(), Type: dt, Nullable: n.RepetitionType() != parquet.Repetitions.Required,
			Metadata: fieldIDMeta(n.FieldID())}
		if n.RepetitionType() == parquet.Repetitions.Repeated && !n.LogicalType().Equals(schema.VariantLogicalType{}) {
			c.field.Nullable = false // a list of a repeated variant is nullable, as pqarrow has it
		}
		if origin != nil {
			if _, err := applyOrigin(origin.Field(i), c.field); err != nil {
				return nil, err
			}
		}
	}
	return cols, nil
}

func fieldIDMeta(id int32) arrow.Metadata {
	return arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(int(id))})
}

// originSchema parses the Arrow schema stored under ARROW:schema (base64 of
// an IPC stream holding only the schema), or returns nil when there is none.
func originSchema(kv metadata.KeyValueMetadata) (*arrow.Schema, error) {
	if kv == nil {
		return nil, nil
	}
	v := kv.FindValue("ARROW:schema")
	if v == nil {
		return nil, nil
	}
	var dec []byte
	var err error
	if len(*v)%4 == 0 {
		dec, err = base64.StdEncoding.DecodeString(*v)
	}
	if len(dec) == 0 || err != nil {
		if dec, err = base64.RawStdEncoding.DecodeString(*v); err != nil {
			return nil, err
		}
	}
	r, err := ipc.NewReader(bytes.NewReader(dec), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.Schema(), nil
}

// applyOrigin changes the inferred field f as the stored Arrow field o
// says, where pqarrow does: only types that Parquet cannot tell apart. It
// reports whether it changed f (or would have: pqarrow's rule), which
// decides whether an extension type o wraps f.
func applyOrigin(o arrow.Field, f *arrow.Field) (modified bool, err error) {
	switch o.Type.ID() {
	case arrow.EXTENSION:
		ext := o.Type.(arrow.ExtensionType)
		storage := ext.StorageType()
		if modified, err = applyOrigin(arrow.Field{Type: storage, Metadata: o.Metadata}, f); err != nil {
			return modified, err
		}
		if modified && !arrow.TypeEqual(ext, f.Type) {
			inferred := f.Type
			if inf, ok := inferred.(arrow.ExtensionType); ok && inf.ExtensionName() == ext.ExtensionName() {
				inferred = inf.StorageType()
			}
			if !arrow.TypeEqual(storage, inferred) {
				return modified, fmt.Errorf("%w: mismatch storage type '%s' for extension type '%s'", arrow.ErrInvalid, f.Type, ext)
			}
			f.Type = ext
		}
	case arrow.SPARSE_UNION, arrow.DENSE_UNION:
		return false, errors.New("unimplemented type")
	case arrow.TIMESTAMP:
		ts, ok := f.Type.(*arrow.TimestampType)
		if !ok {
			return false, nil
		}
		ots := o.Type.(*arrow.TimestampType)
		if ots.Unit == ts.Unit && ts.TimeZone == "UTC" && ots.TimeZone != "" {
			f.Type = o.Type
		}
		modified = true
	case arrow.DURATION:
		if f.Type.ID() == arrow.INT64 {
			f.Type = o.Type
			modified = true
		}
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		// Whatever the Parquet type: a column that cannot hold it is
		// refused when it is read (newColSource), not the whole file.
		f.Type = o.Type
		modified = true
	case arrow.DICTIONARY:
		if !arrow.IsBinaryLike(f.Type.ID()) {
			return false, nil
		}
		d := o.Type.(*arrow.DictionaryType)
		f.Type = &arrow.DictionaryType{IndexType: d.IndexType, ValueType: f.Type, Ordered: d.Ordered}
		modified = true
	case arrow.DECIMAL256:
		if f.Type.ID() == arrow.DECIMAL128 {
			f.Type = o.Type
			modified = true
		}
	}
	if o.HasMetadata() {
		if f.HasMetadata() {
			m := map[string]string{}
			for i, k := range o.Metadata.Keys() {
				m[k] = o.Metadata.Values()[i]
			}
			for i, k := range f.Metadata.Keys() {
				m[k] = f.Metadata.Values()[i]
			}
			f.Metadata = arrow.MetadataFrom(m)
		} else {
			f.Metadata = o.Metadata
		}
		modified = true
	}
	return modified, nil
}

// leafArrowType is the Arrow type of a Parquet primitive column.
func leafArrowType(physical parquet.Type, logical schema.LogicalType, typeLen int) (arrow.DataType, error) {
	if !logical.IsValid() || logical.Equals(schema.NullLogicalType{}) {
		return arrow.Null, nil
	}
	switch physical {
	case parquet.Types.Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case parquet.Types.Int32:
		switch lt := logical.(type) {
		case schema.NoLogicalType:
			return arrow.PrimitiveTypes.Int32, nil
		case schema.TimeLogicalType:
			if lt.TimeUnit() == schema.TimeUnitMillis {
				return arrow.FixedWidthTypes.Time32ms, nil
			}
			return nil, errors.New(lt.String() + " cannot annotate a time32")
		case schema.DecimalLogicalType:
			return arrowDecimal(lt), nil
		case schema.IntLogicalType:
			return arrowInt(lt)
		case schema.DateLogicalType:
			return arrow.FixedWidthTypes.Date32, nil
		}
		return nil, errors.New(logical.String() + " cannot annotate int32")
	case parquet.Types.Int64:
		if logical.IsNone() {
			return arrow.PrimitiveTypes.Int64, nil
		}
		switch lt := logical.(type) {
		case schema.IntLogicalType:
			return arrowInt(lt)
		case schema.DecimalLogicalType:
			return arrowDecimal(lt), nil
		case schema.TimeLogicalType:
			switch lt.TimeUnit() {
			case schema.TimeUnitMicros:
				return arrow.FixedWidthTypes.Time64us, nil
			case schema.TimeUnitNanos:
				return arrow.FixedWidthTypes.Time64ns, nil
			}
			return nil, errors.New(lt.String() + " cannot annotate int64")
		case schema.TimestampLogicalType:
			tz := ""
			if lt.IsAdjustedToUTC() || lt.IsFromConvertedType() {
				tz = "UTC"
			}
			switch lt.TimeUnit() {
			case schema.TimeUnitMillis:
				return &arrow.TimestampType{TimeZone: tz, Unit: arrow.Millisecond}, nil
			case schema.TimeUnitMicros:
				return &arrow.TimestampType{TimeZone: tz, Unit: arrow.Microsecond}, nil
			case schema.TimeUnitNanos:
				return &arrow.TimestampType{TimeZone: tz, Unit: arrow.Nanosecond}, nil
			}
			return nil, errors.New("Unrecognized unit in timestamp logical type " + lt.String())
		}
		return nil, errors.New(logical.String() + " cannot annotate int64")
	case parquet.Types.Int96:
		return arrow.FixedWidthTypes.Timestamp_ns, nil
	case parquet.Types.Float:
		return arrow.PrimitiveTypes.Float32, nil
	case parquet.Types.Double:
		return arrow.PrimitiveTypes.Float64, nil
	case parquet.Types.ByteArray:
		switch lt := logical.(type) {
		case schema.StringLogicalType:
			return arrow.BinaryTypes.String, nil
		case schema.DecimalLogicalType:
			return arrowDecimal(lt), nil
		case schema.GeometryLogicalType, schema.GeographyLogicalType:
			return extensionFromParquet(logical, arrow.BinaryTypes.Binary)
		case schema.NoLogicalType, schema.EnumLogicalType, schema.JSONLogicalType, schema.BSONLogicalType:
			return arrow.BinaryTypes.Binary, nil
		}
		return nil, errors.New("unhandled logicaltype " + logical.String() + " for byte_array")
	case parquet.Types.FixedLenByteArray:
		switch lt := logical.(type) {
		case schema.DecimalLogicalType:
			return arrowDecimal(lt), nil
		case schema.NoLogicalType, schema.IntervalLogicalType:
			return &arrow.FixedSizeBinaryType{ByteWidth: typeLen}, nil
		case schema.UUIDLogicalType:
			if t := arrow.GetExtensionType("arrow.uuid"); t != nil {
				return t, nil
			}
			return &arrow.FixedSizeBinaryType{ByteWidth: typeLen}, nil
		case schema.Float16LogicalType:
			return &arrow.Float16Type{}, nil
		}
		return nil, errors.New("unhandled logical type " + logical.String() + " for fixed-length byte array")
	}
	return nil, errors.New("invalid physical column type")
}

func arrowInt(lt schema.IntLogicalType) (arrow.DataType, error) {
	s := lt.IsSigned()
	switch lt.BitWidth() {
	case 8:
		if s {
			return arrow.PrimitiveTypes.Int8, nil
		}
		return arrow.PrimitiveTypes.Uint8, nil
	case 16:
		if s {
			return arrow.PrimitiveTypes.Int16, nil
		}
		return arrow.PrimitiveTypes.Uint16, nil
	case 32:
		if s {
			return arrow.PrimitiveTypes.Int32, nil
		}
		return arrow.PrimitiveTypes.Uint32, nil
	case 64:
		if s {
			return arrow.PrimitiveTypes.Int64, nil
		}
		return arrow.PrimitiveTypes.Uint64, nil
	}
	return nil, errors.New("invalid logical type for int32")
}

func arrowDecimal(lt schema.DecimalLogicalType) arrow.DataType {
	if lt.Precision() <= decimal128.MaxPrecision {
		return &arrow.Decimal128Type{Precision: lt.Precision(), Scale: lt.Scale()}
	}
	return &arrow.Decimal256Type{Precision: lt.Precision(), Scale: lt.Scale()}
}

// parquetReadExtension is what a registered Arrow extension type implements
// to claim a Parquet logical type (pqarrow's ExtensionCustomArrowReadType).
type parquetReadExtension interface {
	ArrowTypeFromParquet(schema.LogicalType, arrow.DataType) (arrow.ExtensionType, error)
}

// extensionFromParquet is the registered extension type that claims
// logical, or storage when none does.
func extensionFromParquet(logical schema.LogicalType, storage arrow.DataType) (arrow.DataType, error) {
	var typ arrow.ExtensionType
	var lookupErr error
	matched := arrow.FindRegisteredExtensionType(func(et arrow.ExtensionType) bool {
		c, ok := et.(parquetReadExtension)
		if !ok {
			return false
		}
		var err error
		if typ, err = c.ArrowTypeFromParquet(logical, storage); err != nil {
			if lookupErr == nil {
				lookupErr = err
			}
			return false
		}
		return typ != nil
	})
	if matched != nil {
		return typ, nil
	}
	if lookupErr != nil {
		return nil, lookupErr
	}
	return storage, nil
}

// nestedArrowType is the Arrow type of a group or repeated column, for
// the message that refuses it: lists (one-, two- and three-level),
// maps and structs as pqarrow names them.
func nestedArrowType(n schema.Node) (arrow.DataType, error) {
	if p, ok := n.(*schema.PrimitiveNode); ok {
		dt, err := leafArrowType(p.PhysicalType(), p.LogicalType(), p.TypeLength())
		if err != nil {
			return nil, err
		}
		if p.RepetitionType() == parquet.Repetitions.Repeated {
			return arrow.ListOf(dt), nil // one-level list: not nullable items
		}
		return dt, nil
	}
	g := n.(*schema.GroupNode)
	lt := g.LogicalType()
	switch {
	case lt.Equals(schema.NewListLogicalType()), lt.Equals(schema.MapLogicalType{}) && g.NumFields() == 1 && isSet(g):
		return listArrowType(g)
	case lt.Equals(schema.MapLogicalType{}):
		if g.NumFields() != 1 {
			return nil, errors.New("MAP group must have exactly 1 child")
		}
		kv, ok := g.Field(0).(*schema.GroupNode)
		if !ok || kv.RepetitionType() != parquet.Repetitions.Repeated {
			return nil, errors.New("non-repeated keyvalue group in MAP group is not supported")
		}
		if kv.NumFields() != 2 {
			return nil, fmt.Errorf("keyvalue node group must have exactly 1 or 2 child elements, found %d", kv.NumFields())
		}
		k, err := childField(kv.Field(0))
		if err != nil {
			return nil, err
		}
		v, err := childField(kv.Field(1))
		if err != nil {
			return nil, err
		}
		return arrow.MapOfFields(k, v), nil
	case lt.Equals(schema.VariantLogicalType{}):
		return variantArrowType(g)
	}
	st, err := structArrowType(g)
	if err != nil {
		return nil, err
	}
	if g.RepetitionType() == parquet.Repetitions.Repeated {
		return arrow.ListOf(st), nil
	}
	return st, nil
}

// variantArrowType is the Arrow variant extension type of a VARIANT group
// (its metadata, value and typed_value as a struct), a list of them when
// the group is repeated.
func variantArrowType(g *schema.GroupNode) (arrow.DataType, error) {
	if n := g.NumFields(); n != 2 && n != 3 {
		return nil, fmt.Errorf("VARIANT group must have exactly 2 or 3 children, not %d", n)
	}
	st, err := structArrowType(g)
	if err != nil {
		return nil, err
	}
	vt, err := extensions.NewVariantType(st)
	if err != nil {
		return nil, err
	}
	if g.RepetitionType() == parquet.Repetitions.Repeated {
		return arrow.ListOfField(arrow.Field{Name: g.Name(), Type: vt, Nullable: true, Metadata: fieldIDMeta(g.FieldID())}), nil
	}
	return vt, nil
}

// isSet reports whether a MAP group has a key-value group of one child,
// which pqarrow reads as a list.
func isSet(g *schema.GroupNode) bool {
	kv, ok := g.Field(0).(*schema.GroupNode)
	return ok && kv.NumFields() == 1
}

func childField(n schema.Node) (arrow.Field, error) {
	dt, err := nestedArrowType(n)
	if err != nil {
		return arrow.Field{}, err
	}
	nullable := n.RepetitionType() == parquet.Repetitions.Optional
	if _, ok := n.(*schema.GroupNode); ok {
		nullable = n.RepetitionType() != parquet.Repetitions.Required
		if n.RepetitionType() == parquet.Repetitions.Repeated {
			nullable = false
		}
	}
	return arrow.Field{Name: n.Name(), Type: dt, Nullable: nullable, Metadata: fieldIDMeta(n.FieldID())}, nil
}

func structArrowType(g *schema.GroupNode) (arrow.DataType, error) {
	fs := make([]arrow.Field, g.NumFields())
	for i := range fs {
		f, err := childField(g.Field(i))
		if err != nil {
			return nil, err
		}
		fs[i] = f
	}
	return arrow.StructOf(fs...), nil
}

func listArrowType(g *schema.GroupNode) (arrow.DataType, error) {
	if g.NumFields() != 1 {
		return nil, errors.New("LIST groups must have only 1 child")
	}
	item := g.Field(0)
	if item.RepetitionType() != parquet.Repetitions.Repeated {
		return nil, errors.New("non-repeated nodes in a list group are not supported")
	}
	if ig, ok := item.(*schema.GroupNode); ok {
		if ig.NumFields() == 1 && ig.Name() != "array" && ig.Name() != g.Name()+"_tuple" {
			f, err := childField(ig.Field(0))
			if err != nil {
				return nil, err
			}
			return arrow.ListOfField(f), nil
		}
		st, err := structArrowType(ig)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: ig.Name(), Type: st, Nullable: false, Metadata: fieldIDMeta(ig.FieldID())}), nil
	}
	p := item.(*schema.PrimitiveNode)
	dt, err := leafArrowType(p.PhysicalType(), p.LogicalType(), p.TypeLength())
	if err != nil {
		return nil, err
	}
	return arrow.ListOfField(arrow.Field{Name: p.Name(), Type: dt, Nullable: false, Metadata: fieldIDMeta(p.FieldID())}), nil
}
