package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// s3Store is one S3 bucket, through the AWS SDK's S3 client.
type s3Store struct {
	client *s3.Client
	bucket string
}

func openS3(ctx context.Context, bucket string) (store, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		// The SDK wants a region even for a custom endpoint; S3 redirects
		// a wrong one for real buckets only with path errors, so say it.
		cfg.Region = "us-east-1"
	}
	// Checksums only where the API requires them: S3-compatible servers
	// do not all send them, and the SDK would warn on every ranged read.
	cfg.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	cfg.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	custom := cfg.BaseEndpoint != nil || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = awshttp.NewBuildableClient()
	}
	cfg.HTTPClient = guard{send: cfg.HTTPClient.Do}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// Custom endpoints (MinIO, Ceph, moto, a VPC endpoint by IP) rarely
		// resolve bucket subdomains; the bucket goes in the path there.
		o.UsePathStyle = custom && os.Getenv("RANKEVAL_S3_VIRTUAL_HOST") == ""
	})
	return &s3Store{client: client, bucket: bucket}, nil
}

// s3Error classifies an SDK error by the response's status.
func s3Error(err error) error {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusNotFound:
			return ErrNotFound
		case http.StatusPreconditionFailed:
			return &changedError{}
		case http.StatusForbidden, http.StatusUnauthorized:
			return fmt.Errorf("%v: %w", err, ErrAccess)
		}
	}
	var nk *types.NoSuchKey
	if errors.As(err, &nk) {
		return ErrNotFound
	}
	return err
}

func (s *s3Store) stat(ctx context.Context, key string) (version, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return version{}, s3Error(err)
	}
	return version{size: aws.ToInt64(out.ContentLength), tag: aws.ToString(out.ETag)}, nil
}

// read asks for the ETag stat found (If-Match): S3 answers 412 once the
// object is replaced.
func (s *s3Store) read(ctx context.Context, key string, v version, off, n int64) (io.ReadCloser, error) {
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &key}
	if v.tag != "" {
		in.IfMatch = aws.String(v.tag)
	}
	if n >= 0 {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	out, err := s.client.GetObject(ctx, in)
	if err != nil {
		return nil, s3Error(err)
	}
	if n >= 0 {
		if err := checkRange(off, n, v, aws.ToString(out.ContentRange), aws.ToInt64(out.ContentLength)); err != nil {
			out.Body.Close()
			return nil, err
		}
	}
	return out.Body, nil
}

func (s *s3Store) list(ctx context.Context, prefix string, add func(string) error) error {
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: &prefix, EncodingType: types.EncodingTypeUrl}
	for {
		out, err := s.client.ListObjectsV2(ctx, in)
		if err != nil {
			return s3Error(err)
		}
		for _, o := range out.Contents {
			key := aws.ToString(o.Key)
			if out.EncodingType == types.EncodingTypeUrl {
				// keys come URL-encoded, as XML cannot carry every byte a key may hold
				if key, err = url.QueryUnescape(key); err != nil {
					return fmt.Errorf("listing %q: a key the store sent is not URL-encoded: %v", prefix, err)
				}
			}
			if err := add(key); err != nil {
				return err
			}
		}
		if !aws.ToBool(out.IsTruncated) {
			return nil
		}
		if aws.ToString(out.NextContinuationToken) == "" {
			return listErrorf("the listing says more keys follow but gives no continuation token: a faulty store or proxy")
		}
		in.ContinuationToken = out.NextContinuationToken
	}
}

func (s *s3Store) put(ctx context.Context, key string, r io.ReaderAt, size int64) error {
	body := io.NewSectionReader(r, 0, size)
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &key, Body: body, ContentLength: &size})
	return s3Error(err)
}
